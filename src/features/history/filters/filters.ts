import { humanizeAction } from '../../../lib/format';
import { KNOWN_STATUSES } from '../../../lib/operation-status';

// What a person filters a history by, as it lives in the address (DESIGN §1):
// `?status=failed,running&action=apply_config&branch=<id>&compute=<id>&q=<text>&from=<iso>&to=<iso>`.
// `status` and `action` take the API's values, comma-separated; `status=other` stands for every status
// the console does not know. The API has no filters: a view applies these to the operations loaded.

export interface HistoryFilters {
  status: readonly string[];
  action: readonly string[];
  branch: string | undefined;
  compute: string | undefined;
  /** Matches an operation id or action (its API value or its name), ignoring case. */
  q: string | undefined;
  /** ISO times: created at or after `from`, at or before `to`. */
  from: string | undefined;
  to: string | undefined;
}

export const NO_FILTERS: HistoryFilters = { status: [], action: [], branch: undefined, compute: undefined, q: undefined, from: undefined, to: undefined };

/** The `status` value for statuses the console does not know (a new one the platform added). */
export const OTHER_STATUS = 'other';

/**
 * The Status control's choices, by the labels of DESIGN §3, each with the API values it stands for.
 * Error covers both failures (`failed` may still be retried; `error` is final); In progress covers cancelling.
 */
export const STATUS_CHOICES: readonly { label: string; statuses: readonly string[] }[] = [
  { label: 'OK', statuses: ['finished'] },
  { label: 'In progress', statuses: ['running', 'cancelling'] },
  { label: 'Scheduling', statuses: ['scheduling'] },
  { label: 'Error', statuses: ['failed', 'error'] },
  { label: 'Cancelled', statuses: ['cancelled'] },
  { label: 'Skipped', statuses: ['skipped'] },
  { label: 'other', statuses: [OTHER_STATUS] },
];

/** The platform's actions (its OpenAPI document); the Action control also offers any other it has seen. */
export const KNOWN_ACTIONS: readonly string[] = [
  'apply_config', 'apply_schema_from_branch', 'apply_storage_config', 'check_availability', 'create_branch',
  'create_compute', 'create_timeline', 'delete_timeline', 'detach_parent_branch', 'disable_maintenance',
  'finalize_migration', 'import_data', 'mark_migration_prepared', 'prepare_secondary_pageserver', 'prewarm_replica',
  'promote_replica', 'replace_safekeeper', 'set_storage_non_dirty', 'start_compute', 'start_reserved_compute',
  'suspend_compute', 'swap_binding_id', 'switch_pageserver', 'sync_dbs_and_roles_from_compute', 'tenant_attach',
  'tenant_detach', 'tenant_ignore', 'tenant_reattach', 'timeline_archive', 'timeline_mark_invisible',
  'timeline_unarchive', 'timeline_update_protected_config', 'update_catalog',
];

/** `a,b,,c` → ['a', 'b', 'c'], each once. */
function list(value: string | null): string[] {
  if (!value) return [];
  return [...new Set(value.split(',').map((part) => part.trim()).filter(Boolean))];
}

function text(value: string | null): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** An ISO time as given, or nothing when it is not one. */
function time(value: string | null): string | undefined {
  const given = text(value);
  return given !== undefined && /^\d{4}-\d{2}-\d{2}T/.test(given) && !Number.isNaN(Date.parse(given)) ? given : undefined;
}

/** The filters in an address's query; a time that is not one is left out rather than failing the page. */
export function filtersFromSearch(params: URLSearchParams): HistoryFilters {
  return {
    status: list(params.get('status')),
    action: list(params.get('action')),
    branch: text(params.get('branch')),
    compute: text(params.get('compute')),
    q: text(params.get('q')),
    from: time(params.get('from')),
    to: time(params.get('to')),
  };
}

/** `params` with the filters written into it (and those not set taken out); other parameters kept. */
export function searchWithFilters(params: URLSearchParams, filters: HistoryFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (name: string, value: string | undefined) => {
    if (value) next.set(name, value);
    else next.delete(name);
  };
  set('status', filters.status.join(','));
  set('action', filters.action.join(','));
  set('branch', filters.branch);
  set('compute', filters.compute);
  set('q', filters.q?.trim());
  set('from', filters.from);
  set('to', filters.to);
  return next;
}

export function isFiltered(filters: HistoryFilters): boolean {
  return (
    filters.status.length > 0 ||
    filters.action.length > 0 ||
    filters.branch !== undefined ||
    filters.compute !== undefined ||
    filters.q !== undefined ||
    filters.from !== undefined ||
    filters.to !== undefined
  );
}

/** The fields of an operation the filters read. */
export interface FilterableOperation {
  id: string;
  action: string;
  status: string;
  branch_id?: string | undefined;
  endpoint_id?: string | undefined;
  created_at: string;
}

const known = new Set(KNOWN_STATUSES);

/** A test for one operation against the filters, built once for a whole list. */
export function operationFilter(filters: HistoryFilters): (operation: FilterableOperation) => boolean {
  const statuses = new Set(filters.status);
  const other = statuses.has(OTHER_STATUS);
  const actions = new Set(filters.action);
  const q = filters.q?.toLowerCase();
  const from = filters.from === undefined ? -Infinity : Date.parse(filters.from);
  const to = filters.to === undefined ? Infinity : Date.parse(filters.to);
  const timed = filters.from !== undefined || filters.to !== undefined;
  return (op) => {
    if (statuses.size > 0 && !statuses.has(op.status) && !(other && !known.has(op.status))) return false;
    if (actions.size > 0 && !actions.has(op.action)) return false;
    if (filters.branch !== undefined && op.branch_id !== filters.branch) return false;
    if (filters.compute !== undefined && op.endpoint_id !== filters.compute) return false;
    if (q !== undefined && !op.id.toLowerCase().includes(q) && !op.action.toLowerCase().includes(q) && !humanizeAction(op.action).toLowerCase().includes(q)) {
      return false;
    }
    if (timed) {
      const created = Date.parse(op.created_at);
      if (created < from || created > to) return false;
    }
    return true;
  };
}

/** The operations that match, in their order. */
export function filterOperations<T extends FilterableOperation>(operations: readonly T[], filters: HistoryFilters): readonly T[] {
  if (!isFiltered(filters)) return operations;
  return operations.filter(operationFilter(filters));
}
