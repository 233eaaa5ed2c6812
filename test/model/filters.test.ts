import { describe, expect, it } from 'vitest';
import {
  filtersFromSearch,
  isFiltered,
  NO_FILTERS,
  operationFilter,
  searchWithFilters,
  STATUS_CHOICES,
  type FilterableOperation,
} from '../../src/model/filters';
import { KNOWN_STATUSES, statusLabel } from '../../src/model/operation-status';

function op(fields: Partial<FilterableOperation> = {}): FilterableOperation {
  return { id: '0b6c1e9a-4f3e-4c8e-9d3a-1a2b3c4d5e6f', action: 'apply_config', status: 'finished', created_at: '2026-11-22T11:00:00.123456Z', ...fields };
}

describe('history filters', () => {
  it('reads the address and writes it back as it was, keeping other parameters', () => {
    const search =
      'status=failed%2Crunning&action=apply_config&branch=br-1&compute=ep-1&q=abc&from=2026-11-20T00%3A00%3A00.000Z&to=2026-11-21T00%3A00%3A00.000Z';
    const filters = filtersFromSearch(new URLSearchParams(`${search}&org=o-1`));
    expect(filters).toEqual({
      status: ['failed', 'running'],
      action: ['apply_config'],
      branch: 'br-1',
      compute: 'ep-1',
      q: 'abc',
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-21T00:00:00.000Z',
    });
    expect(searchWithFilters(new URLSearchParams('org=o-1'), filters).toString()).toBe(`org=o-1&${search}`);
    expect(searchWithFilters(new URLSearchParams(search), NO_FILTERS).toString()).toBe('');
  });

  it('leaves out what is empty or not a time, rather than failing the page', () => {
    const filters = filtersFromSearch(new URLSearchParams('status=,failed,,failed&q=%20%20&from=yesterday&branch='));
    expect(filters).toEqual({ ...NO_FILTERS, status: ['failed'] });
    expect(isFiltered(NO_FILTERS)).toBe(false);
    expect(isFiltered(filters)).toBe(true);
  });

  it('reads a list sent as the same parameter several times (the filter form without script) as one, and writes it back as one', () => {
    const sent = new URLSearchParams('status=finished&status=failed%2Cerror&action=apply_config&action=start_compute&branch=&compute=&q=');
    const filters = filtersFromSearch(sent);
    expect(filters).toEqual({ ...NO_FILTERS, status: ['finished', 'failed', 'error'], action: ['apply_config', 'start_compute'] });
    expect(searchWithFilters(sent, filters).toString()).toBe('status=finished%2Cfailed%2Cerror&action=apply_config%2Cstart_compute');
  });

  it('offers every status the console knows under exactly one label, the label it shows for it', () => {
    for (const status of KNOWN_STATUSES) {
      const choices = STATUS_CHOICES.filter((c) => c.statuses.includes(status));
      expect(choices).toHaveLength(1);
      expect(statusLabel(status).startsWith(choices[0]!.label)).toBe(true);
    }
    expect(STATUS_CHOICES.map((c) => c.label)).toEqual(['OK', 'In progress', 'Scheduling', 'Error', 'Cancelled', 'Skipped', 'other']);
  });

  it('matches by status (other: any the console does not know), action, branch, compute, text and time', () => {
    const matches = (search: string, fields: Partial<FilterableOperation> = {}) => operationFilter(filtersFromSearch(new URLSearchParams(search)))(op(fields));
    expect(matches('status=failed,error', { status: 'error' })).toBe(true);
    expect(matches('status=failed', { status: 'error' })).toBe(false);
    expect(matches('status=other', { status: 'paused_by_operator' })).toBe(true);
    expect(matches('status=other', { status: 'running' })).toBe(false);
    expect(matches('action=start_compute,apply_config')).toBe(true);
    expect(matches('action=start_compute')).toBe(false);
    expect(matches('branch=br-1', { branch_id: 'br-1' })).toBe(true);
    expect(matches('branch=br-1')).toBe(false);
    expect(matches('compute=ep-1', { endpoint_id: 'ep-2' })).toBe(false);
    // The text matches the id, the API's action and the name the console shows for it, ignoring case.
    expect(matches('q=0B6C1E9A')).toBe(true);
    expect(matches('q=apply_conf')).toBe(true);
    expect(matches('q=Apply%20config')).toBe(true);
    expect(matches('q=suspend')).toBe(false);
    expect(matches('from=2026-11-22T11:00:00Z&to=2026-11-22T11:00:01Z')).toBe(true);
    expect(matches('from=2026-11-22T11:00:01Z')).toBe(false);
    expect(matches('to=2026-11-22T10:59:59Z')).toBe(false);
  });
});
