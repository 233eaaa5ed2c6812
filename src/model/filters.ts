import { sqlParams, type SqlParam } from './sql-params';
import { FILTER_FIELDS, NO_FILTERS, OTHER_STATUS, type FilterableOperation, type HistoryFilters } from './filter-fields';
import { isKnownStatus } from './operation-status';

// A history's filters as a whole, each form derived from the fields' one description (filter-fields.ts):
// the address, the in-browser test, the jq program and the SQL condition. The API has no filters: a
// view applies these to the operations loaded; the copied command hands them to jq; the archive to SQL.

export { NO_FILTERS, OTHER_STATUS, TEXT_RULE, type FilterableOperation, type HistoryFilters } from './filter-fields';

/**
 * The Status control's choices, by the labels of docs/platform-api.md, each with the API values it stands for.
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

/** The `status` values of an address that are no status the Status control offers (`?status=bogus`): the page says so. */
export function unknownStatuses(statuses: readonly string[]): string[] {
  return statuses.filter((status) => !isKnownStatus(status) && status !== OTHER_STATUS);
}

/** The platform's actions (its OpenAPI document); the Action control also offers any other it has seen. */
export const KNOWN_ACTIONS: readonly string[] = [
  'apply_config',
  'apply_schema_from_branch',
  'apply_storage_config',
  'check_availability',
  'create_branch',
  'create_compute',
  'create_timeline',
  'delete_timeline',
  'detach_parent_branch',
  'disable_maintenance',
  'finalize_migration',
  'import_data',
  'mark_migration_prepared',
  'prepare_secondary_pageserver',
  'prewarm_replica',
  'promote_replica',
  'replace_safekeeper',
  'set_storage_non_dirty',
  'start_compute',
  'start_reserved_compute',
  'suspend_compute',
  'swap_binding_id',
  'switch_pageserver',
  'sync_dbs_and_roles_from_compute',
  'tenant_attach',
  'tenant_detach',
  'tenant_ignore',
  'tenant_reattach',
  'timeline_archive',
  'timeline_mark_invisible',
  'timeline_unarchive',
  'timeline_update_protected_config',
  'update_catalog',
];

/** The filters in an address's query; a value that is not one (a time that is not a time) is left out rather than failing the page. */
export function filtersFromSearch(params: URLSearchParams): HistoryFilters {
  return Object.assign({ ...NO_FILTERS }, ...FILTER_FIELDS.map((field) => field.read(params))) as HistoryFilters;
}

/** `params` with the filters written into it (and those not set taken out); other parameters kept. */
export function searchWithFilters(params: URLSearchParams, filters: HistoryFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const field of FILTER_FIELDS) {
    for (const [name, value] of Object.entries(field.write(filters))) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
  }
  return next;
}

const setFields = (filters: HistoryFilters) => FILTER_FIELDS.filter((field) => field.isSet(filters));

export function isFiltered(filters: HistoryFilters): boolean {
  return setFields(filters).length > 0;
}

/** A test for one operation against the filters, built once for a whole list. */
export function operationFilter(filters: HistoryFilters): (operation: FilterableOperation) => boolean {
  const tests = setFields(filters).map((field) => field.predicate(filters));
  return (op) => tests.every((test) => test(op));
}

/** The operations that match, in their order. */
export function filterOperations<T extends FilterableOperation>(operations: readonly T[], filters: HistoryFilters): readonly T[] {
  if (!isFiltered(filters)) return operations;
  return operations.filter(operationFilter(filters));
}

/** Whether the filters set no field but these (by name: `status`, `action`, …): what a narrower table can count. */
export function filtersOnly(filters: HistoryFilters, names: readonly string[]): boolean {
  return setFields(filters).every((field) => names.includes(field.name));
}

/** The filters as one jq boolean over an operation object; undefined when nothing is filtered. */
export function jqCondition(filters: HistoryFilters): string | undefined {
  const tests = setFields(filters).map((field) => field.jq(filters));
  return tests.length > 0 ? tests.join(' and ') : undefined;
}

/**
 * The filters as a WHERE condition over the `operations` table (filter-fields.ts names its columns), with
 * its values as parameters `$first`, `$first + 1`, …; `TRUE` when nothing is filtered.
 */
export function sqlCondition(filters: HistoryFilters, first = 1): { where: string; params: SqlParam[] } {
  const params = sqlParams(first);
  const tests = setFields(filters).map((field) => field.sql(filters, params));
  return { where: tests.length > 0 ? tests.join(' AND ') : 'TRUE', params: params.values };
}
