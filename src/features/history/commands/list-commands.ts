import { OPERATIONS_MAX_LIMIT } from '../../../api/operations';
import { formatCount } from '../../../lib/format';
import { curlGet, neonctlCommand, readUrl, shellQuote, type ApiRead } from '../../../lib/shell-commands';
import { epochSeconds, JQ_CREATED_SECONDS } from '../../../model/filter-fields';
import { jqCondition, type HistoryFilters } from '../../../model/filters';

// The current list as a terminal command. The API filters nothing, so the filters go to jq (their jq
// form, src/model/filter-fields.ts). Copy as curl reads every page, following the cursor to the end of the
// history (or past the start of the time range), so it prints exactly what the page finds; neonctl
// cannot loop, so its command reads the newest page and the page says so (NEONCTL_COVERS).

/** The jq program that prints the operations of one page that match, one JSON object a line. */
export function jqProgram(filters: HistoryFilters): string {
  const condition = jqCondition(filters);
  return condition === undefined ? '.operations[]' : `.operations[] | select(${condition})`;
}

/** The jq program that prints the next page's URL, or nothing once the history (or the time range) has ended. */
function nextPageProgram(filters: HistoryFilters): string {
  const full = `(.operations | length) == ${OPERATIONS_MAX_LIMIT}`;
  // Pages are newest first: once a page's oldest is before the range, older pages hold no match.
  const inRange = filters.from === undefined ? '' : ` and (.operations[-1] | ${JQ_CREATED_SECONDS} >= ${epochSeconds(filters.from)})`;
  return `if ${full}${inRange} then $url + "&cursor=" + (.pagination.cursor // empty | @uri) else empty end`;
}

const listRead = (base: string, projectId: string): ApiRead => ({
  base,
  path: `/projects/${encodeURIComponent(projectId)}/operations`,
  query: { limit: OPERATIONS_MAX_LIMIT },
});

/**
 * A POSIX shell loop (in a subshell, so a failure's `exit` leaves only it): curl each page with the
 * key's variable, print its matches with jq (NDJSON), and go on from the page's cursor while pages
 * come full. A failed request prints the API's answer and stops with status 1.
 */
export function listCurl(base: string, projectId: string, filters: HistoryFilters): string {
  return [
    '(',
    `  url=${shellQuote(readUrl(listRead(base, projectId)))}`,
    '  next=$url',
    '  while [ -n "$next" ]; do',
    `    page=$(${curlGet('"$next"')}) || { printf '%s\\n' "$page" >&2; exit 1; }`,
    `    printf '%s\\n' "$page" | jq -c ${shellQuote(jqProgram(filters))}`,
    `    next=$(printf '%s\\n' "$page" | jq -r --arg url "$url" ${shellQuote(nextPageProgram(filters))})`,
    '  done',
    ')',
  ].join('\n');
}

/** neonctl's read: the newest page at the API's largest size, its matches printed by the same jq program. */
export const listNeonctl = (base: string, projectId: string, filters: HistoryFilters) =>
  `${neonctlCommand(listRead(base, projectId))} | jq -c ${shellQuote(jqProgram(filters))}`;

/** What the neonctl command covers, said beside its button. */
export const NEONCTL_COVERS = `neonctl reads the newest ${formatCount(OPERATIONS_MAX_LIMIT)} operations only (it cannot follow the cursor); Copy as curl reads the whole history.`;
