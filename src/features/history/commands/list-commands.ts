import { OPERATIONS_MAX_LIMIT } from '../../../api/operations';
import { KNOWN_STATUSES } from '../../../lib/operation-status';
import { curlCommand, neonctlCommand, type ApiRead } from '../../../lib/shell-commands';
import { OTHER_STATUS, type HistoryFilters } from '../filters/filters';

// The current list as a terminal command: the newest page of the project's operations (the API's
// largest), and the filters as a jq program, since the API filters nothing itself.

const str = (value: string) => JSON.stringify(value);

const anyOf = (field: string, values: readonly string[]) => `(${values.map((v) => `${field} == ${str(v)}`).join(' or ')})`;

/** Epoch seconds of an ISO time, as jq's fromdateiso8601 gives them (fractions dropped). */
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1_000);

/** The jq program that keeps the operations matching `filters`; undefined when nothing is filtered. */
export function jqProgram(filters: HistoryFilters): string | undefined {
  const tests: string[] = [];
  const statuses = filters.status.filter((s) => s !== OTHER_STATUS);
  const other = filters.status.includes(OTHER_STATUS) ? `(.status | IN(${KNOWN_STATUSES.map(str).join(', ')}) | not)` : undefined;
  if (statuses.length > 0 || other) tests.push(`(${[...(statuses.length ? [anyOf('.status', statuses)] : []), ...(other ? [other] : [])].join(' or ')})`);
  if (filters.action.length > 0) tests.push(anyOf('.action', filters.action));
  if (filters.branch !== undefined) tests.push(`.branch_id == ${str(filters.branch)}`);
  if (filters.compute !== undefined) tests.push(`.endpoint_id == ${str(filters.compute)}`);
  if (filters.q !== undefined) tests.push(`((.id + " " + .action) | ascii_downcase | contains(${str(filters.q.toLowerCase())}))`);
  const created = '(.created_at | sub("\\\\.[0-9]+"; "") | fromdateiso8601)';
  if (filters.from !== undefined) tests.push(`${created} >= ${seconds(filters.from)}`);
  if (filters.to !== undefined) tests.push(`${created} <= ${seconds(filters.to)}`);
  return tests.length ? `.operations[] | select(${tests.join(' and ')})` : undefined;
}

/** The read behind the list: its newest page at the API's largest size, filtered by jq. */
export function listRead(base: string, projectId: string, filters: HistoryFilters): ApiRead {
  return { base, path: `/projects/${encodeURIComponent(projectId)}/operations`, query: { limit: OPERATIONS_MAX_LIMIT }, jq: jqProgram(filters) };
}

export const listCurl = (base: string, projectId: string, filters: HistoryFilters) => curlCommand(listRead(base, projectId, filters));
export const listNeonctl = (base: string, projectId: string, filters: HistoryFilters) => neonctlCommand(listRead(base, projectId, filters));
