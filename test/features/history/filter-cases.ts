import type { FilterableOperation } from '../../../src/model/filter-fields';

// The same filter cases for every form of the filters (address → in-browser test, jq, SQL, the table):
// operations chosen to sit on each field's edges, and addresses that reach them.

export interface CaseOperation extends FilterableOperation {
  status: string;
}

const T = '2026-11-22T11:00';

/** Newest first, as the API lists them; ids say what each one is there for. */
export const CASE_OPERATIONS: readonly CaseOperation[] = [
  { id: 'op-unknown-status', action: 'apply_config', status: 'paused_by_operator', branch_id: 'br-main', created_at: `${T}:09.000001Z` },
  { id: 'op-new-action', action: 'rotate_certificates', status: 'finished', branch_id: 'br-dev', endpoint_id: 'ep-dev', created_at: `${T}:08.5Z` },
  { id: 'OP-UPPER-ID', action: 'start_compute', status: 'error', branch_id: 'br-dev', endpoint_id: 'ep-dev', created_at: `${T}:07.999999Z` },
  { id: 'op-apply-failed', action: 'apply_config', status: 'failed', branch_id: 'br-main', endpoint_id: 'ep-main', created_at: `${T}:07.000000Z` },
  { id: 'op-percent_and_underscore', action: 'create_branch', status: 'cancelled', branch_id: 'br-main', created_at: `${T}:06.123456Z` },
  { id: 'op-no-branch', action: 'tenant_attach', status: 'finished', created_at: `${T}:05Z` },
  { id: 'op-running', action: 'suspend_compute', status: 'running', branch_id: 'br-main', endpoint_id: 'ep-main', created_at: `${T}:04.999Z` },
  { id: 'op-apply-ok', action: 'apply_config', status: 'finished', branch_id: 'br-dev', created_at: `${T}:03.5Z` },
  { id: 'op-check', action: 'check_availability', status: 'skipped', branch_id: 'br-main', created_at: `${T}:02.000500Z` },
  { id: 'op-scheduling', action: 'apply_storage_config', status: 'scheduling', branch_id: 'br-dev', endpoint_id: 'ep-main', created_at: `${T}:01.25Z` },
];

/** Addresses (query strings) of filter cases, each field alone and together. */
export const FILTER_CASES: readonly string[] = [
  '',
  'status=finished',
  'status=failed,error',
  'status=other',
  'status=running,other',
  'action=apply_config',
  'action=apply_config,rotate_certificates',
  'branch=br-dev',
  'compute=ep-main',
  // The text: the API's value, the shown name, case, a part of an id, characters SQL's LIKE would read as patterns.
  'q=apply_config',
  'q=apply config',
  'q=APPLY%20Conf',
  'q=Apply_Config',
  'q=op-upper',
  'q=%25',
  'q=percent_and',
  'q=e_c',
  "q=it's",
  // The range, read to the second: fractions inside the same second count as that second.
  'from=2026-11-22T11:00:07.500Z',
  'to=2026-11-22T11:00:05.000Z',
  'from=2026-11-22T11:00:03Z&to=2026-11-22T11:00:07.999Z',
  'from=2026-11-22T11:00:09.5Z',
  'status=finished,running,scheduling&branch=br-main',
  'status=finished&action=apply_config&branch=br-dev&q=apply%20config&from=2026-11-22T11:00:00Z&to=2026-11-22T11:00:04Z',
];
