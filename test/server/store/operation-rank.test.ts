import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_FILTERS, operationFilter, type HistoryFilters } from '../../../src/model/filters';
import type { Operation } from '../../../src/api/schemas';
import type { Db } from '../../../server/store';
import { operationsPage, upsertOperations, type ListedOperation, type OperationsCursor } from '../../../server/store/operations';
import { DRIVERS, openTestStore } from './store-drivers';

// The platform's created_at has whole seconds; its list is ordered to the microsecond. A branch made with a
// compute is two operations in one second (create_branch, then start_compute), and their ids say nothing of
// which came first: the store keeps the order the API listed them in.

const SEEN = new Date('2026-11-27T09:00:00Z');

function operation(projectId: string, id: string, action: string, second: string): ListedOperation {
  const op: Operation = {
    id,
    project_id: projectId,
    action,
    status: 'finished',
    branch_id: `br-${id}`,
    failures_count: 0,
    created_at: `2026-11-27T08:${second}Z`,
    updated_at: `2026-11-27T08:${second}Z`,
    total_duration_ms: 2_000,
  };
  return { operation: op, body: op };
}

/** A project's history as the API lists it, newest first: three branches made with a compute, checks between. */
function apiList(projectId: string): ListedOperation[] {
  return [
    operation(projectId, 'b7e1', 'apply_config', '59:10'),
    operation(projectId, 'd4d4', 'check_availability', '59:10'),
    // Newer first in the API's order, though their ids sort the other way.
    operation(projectId, 'a0c4', 'start_compute', '58:00'),
    operation(projectId, 'f9d2', 'create_branch', '58:00'),
    operation(projectId, '11aa', 'start_compute', '57:30'),
    operation(projectId, '22bb', 'apply_config', '57:30'),
    operation(projectId, '99ff', 'create_branch', '57:30'),
    operation(projectId, 'c3c3', 'check_availability', '56:00'),
    operation(projectId, '0a0a', 'start_compute', '55:00'),
    operation(projectId, 'e5e5', 'create_branch', '55:00'),
  ];
}

/**
 * A history of 30 operations, four to a second, statuses and actions mixed in each second (ids in no order): the
 * Error choice's operations (failed, error) of one action share seconds with each other and with the rest.
 */
function mixedList(projectId: string): ListedOperation[] {
  const statuses = ['error', 'finished', 'failed', 'failed', 'error', 'paused_by_platform', 'running'];
  const actions = ['start_compute', 'apply_config', 'start_compute'];
  return Array.from({ length: 30 }, (_, i) => {
    const listed = operation(projectId, `op-${String((i * 7) % 30).padStart(2, '0')}`, actions[i % 3] ?? '', `59:${50 - Math.floor(i / 4)}`);
    const op = { ...listed.operation, status: statuses[i % statuses.length] ?? '' };
    return { operation: op, body: op };
  });
}

const ids = (list: readonly ListedOperation[]) => list.map((l) => l.operation.id);

/** The store's whole history of a project (or what `filters` leave of it), newest first, read in pages of `limit` by its cursor. */
async function storedOrder(db: Db, projectId: string, limit: number, filters: HistoryFilters = NO_FILTERS): Promise<string[]> {
  const order: string[] = [];
  let cursor: OperationsCursor | undefined;
  for (;;) {
    const rows = await operationsPage(db, projectId, filters, cursor, limit);
    order.push(...rows.map((row) => row.id));
    const last = rows.at(-1);
    if (rows.length < limit || !last) return order;
    cursor = { createdAt: last.created_key, rank: last.rank, id: last.id };
  }
}

/** Reads `list` as the collector does: pages of `size` from the newest, each after the first going on from the one before. */
async function readInPages(db: Db, projectId: string, list: readonly ListedOperation[], size: number): Promise<void> {
  for (let start = 0; start < list.length; start += size) {
    await upsertOperations(db, projectId, list.slice(start, start + size), SEEN, false, start > 0);
  }
}

describe.each(DRIVERS)('the order of operations that share a second, on %s', (driver) => {
  let db: Db;

  beforeAll(async () => {
    ({ db } = await openTestStore(driver));
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('is the API’s, also where a page of the read ends inside a second, and read back page by page', async () => {
    const list = apiList('p-pages');
    // Pages of 2 split the seconds of 58:00 and 57:30 between pages.
    await readInPages(db, 'p-pages', list, 2);
    expect(await storedOrder(db, 'p-pages', 100)).toEqual(ids(list));
    expect(await storedOrder(db, 'p-pages', 2)).toEqual(ids(list));
  });

  it('keeps the older ones after the newer when a later newest read stops inside their second', async () => {
    const list = apiList('p-newest');
    await readInPages(db, 'p-newest', list, 100);
    // Two more operations in the newest second, read after it began: the next newest read lists them first.
    const arrived = [operation('p-newest', 'ffff', 'start_compute', '59:10'), operation('p-newest', '0000', 'suspend_compute', '59:10')];
    const now = [...arrived, ...list];
    // Its page of 3 ends after the first of that second's operations the store knew: the other stays after it.
    await upsertOperations(db, 'p-newest', now.slice(0, 3), SEEN, false);
    expect(await storedOrder(db, 'p-newest', 100)).toEqual(ids(now));
  });

  it('keeps the operations the API no longer lists in their place after a whole read again', async () => {
    const list = apiList('p-pruned');
    await readInPages(db, 'p-pruned', list, 4);
    // The API drops its oldest four (the oldest of 57:30's among them), and the store reads it whole again.
    await readInPages(db, 'p-pruned', list.slice(0, -4), 4);
    expect(await storedOrder(db, 'p-pruned', 3)).toEqual(ids(list));
  });

  it('lists a page filtered by several statuses and other filters as the whole history lists them, page by page across a second', async () => {
    const list = mixedList('p-statuses');
    await readInPages(db, 'p-statuses', list, 100);
    const whole = await storedOrder(db, 'p-statuses', 100);
    expect(whole).toEqual(ids(list));
    const byId = new Map(list.map((listed) => [listed.operation.id, listed.operation]));
    const choices: HistoryFilters[] = [
      { ...NO_FILTERS, status: ['failed', 'error'], action: ['start_compute'] },
      { ...NO_FILTERS, status: ['error', 'failed', 'other'], action: ['start_compute'], from: '2026-11-27T08:59:44Z', to: '2026-11-27T08:59:49Z' },
    ];
    for (const filters of choices) {
      // What the whole history lists, by the filters' own test in the browser (src/model/filters.ts).
      const matches = operationFilter(filters);
      const expected = whole.filter((id) => {
        const op = byId.get(id);
        return op !== undefined && matches(op);
      });
      expect(expected.length).toBeGreaterThan(5);
      for (const limit of [1, 2, 3, 100]) expect(await storedOrder(db, 'p-statuses', limit, filters)).toEqual(expected);
    }
  });
});
