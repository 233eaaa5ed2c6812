import { KNOWN_STATUSES } from './operation-status';
import type { SqlParams } from './sql-params';

// Each filter field of a history, described once: how it reads and writes the address
// (`?status=…&q=…`, docs/console.md), the test it makes in the browser, the same test as a jq expression
// (the copied command's program, run over the API's operations or the exported NDJSON: both carry
// these field names) and as a SQL condition over an `operations` table whose columns are the
// operation's fields (id, action, status, branch_id, endpoint_id text; created_at timestamptz), its
// values always parameters. filters.ts derives every whole-filter form from this list.

export interface HistoryFilters {
  /** API values; `other` stands for every status the console does not know. */
  status: readonly string[];
  action: readonly string[];
  branch: string | undefined;
  compute: string | undefined;
  /** Text found in the operation's id or action: see TEXT_RULE. */
  q: string | undefined;
  /** ISO times, read to the second: created at or after `from`, at or before `to` (both inclusive). */
  from: string | undefined;
  to: string | undefined;
}

export const NO_FILTERS: HistoryFilters = { status: [], action: [], branch: undefined, compute: undefined, q: undefined, from: undefined, to: undefined };

/** The fields of an operation the filters read. */
export interface FilterableOperation {
  id: string;
  action: string;
  status: string;
  branch_id?: string | undefined;
  endpoint_id?: string | undefined;
  created_at: string;
}

/** The `status` value for statuses the console does not know (a new one the platform added). */
export const OTHER_STATUS = 'other';

export interface FilterField {
  name: string;
  /** The field's parameters in an address; a value that is not one is left out. */
  read(params: URLSearchParams): Partial<HistoryFilters>;
  /** The field's parameters to write (undefined: take the parameter out). */
  write(filters: HistoryFilters): Readonly<Record<string, string | undefined>>;
  isSet(filters: HistoryFilters): boolean;
  /** The following are only asked of a field that is set. In the browser: a test built once per list. */
  predicate(filters: HistoryFilters): (operation: FilterableOperation) => boolean;
  /** A jq boolean over one operation object. */
  jq(filters: HistoryFilters): string;
  /** A SQL boolean over one row of `operations`. */
  sql(filters: HistoryFilters, params: SqlParams): string;
}

/**
 * `a,b,,c` → ['a', 'b', 'c'], each once. The parameter may come several times (`?status=a&status=b,c`:
 * the filter form sent without script, one per checkbox), read as one list.
 */
function list(values: readonly string[]): string[] {
  return [
    ...new Set(
      values
        .flatMap((value) => value.split(','))
        .map((part) => part.trim())
        .filter(Boolean),
    ),
  ];
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

const jqString = (value: string) => JSON.stringify(value);
const jqIn = (field: string, values: readonly string[]) => `(${field} | IN(${values.map(jqString).join(', ')}))`;
const known = new Set(KNOWN_STATUSES);

/** Status: any of the chosen API values; `other` is any value the console does not know. */
const status: FilterField = {
  name: 'status',
  read: (params) => ({ status: list(params.getAll('status')) }),
  write: (filters) => ({ status: filters.status.join(',') || undefined }),
  isSet: (filters) => filters.status.length > 0,
  predicate: (filters) => {
    const chosen = new Set(filters.status);
    const other = chosen.has(OTHER_STATUS);
    return (op) => chosen.has(op.status) || (other && !known.has(op.status));
  },
  jq: (filters) => {
    const values = filters.status.filter((s) => s !== OTHER_STATUS);
    const tests = values.length > 0 ? [jqIn('.status', values)] : [];
    if (filters.status.includes(OTHER_STATUS)) tests.push(`(${jqIn('.status', KNOWN_STATUSES)} | not)`);
    return tests.length === 1 ? (tests[0] ?? '') : `(${tests.join(' or ')})`;
  },
  sql: (filters, params) => {
    const values = filters.status.filter((s) => s !== OTHER_STATUS);
    // One status as an equality: an index scan on `status = ANY(…)` gives its rows in no order (Postgres 15), so
    // a page reads and sorts every match; on `=` it walks operations_by_status newest first and stops at the
    // page's end (docs/benchmarks.md, "The whole record at scale").
    const tests = values.length === 1 ? [`status = ${params.add(values[0] ?? '')}`] : values.length > 1 ? [`status = ANY(${params.add(values)}::text[])`] : [];
    if (filters.status.includes(OTHER_STATUS)) tests.push(`NOT (status = ANY(${params.add(KNOWN_STATUSES)}::text[]))`);
    return tests.length === 1 ? (tests[0] ?? '') : `(${tests.join(' OR ')})`;
  },
};

/** Action: any of the chosen API values (open strings: one the console has never seen too). */
const action: FilterField = {
  name: 'action',
  read: (params) => ({ action: list(params.getAll('action')) }),
  write: (filters) => ({ action: filters.action.join(',') || undefined }),
  isSet: (filters) => filters.action.length > 0,
  predicate: (filters) => {
    const chosen = new Set(filters.action);
    return (op) => chosen.has(op.action);
  },
  jq: (filters) => jqIn('.action', filters.action),
  sql: (filters, params) => `action = ANY(${params.add(filters.action)}::text[])`,
};

/** One id, compared whole: the branch's or the compute's (the API's `endpoint_id`). */
function idField(name: 'branch' | 'compute', column: 'branch_id' | 'endpoint_id'): FilterField {
  return {
    name,
    read: (params) => (name === 'branch' ? { branch: text(params.get(name)) } : { compute: text(params.get(name)) }),
    write: (filters) => ({ [name]: filters[name] }),
    isSet: (filters) => filters[name] !== undefined,
    predicate: (filters) => {
      const id = filters[name];
      return (op) => op[column] === id;
    },
    jq: (filters) => `(.${column} == ${jqString(filters[name] ?? '')})`,
    sql: (filters, params) => `${column} = ${params.add(filters[name] ?? '')}`,
  };
}

/**
 * The text rule, the same in every form: the text is found in the operation's id or in its action,
 * with upper and lower case (ASCII) alike and `_` read as a space, so "apply config", "Apply config"
 * (the name the table shows) and "apply_config" (the API's value) find the same operations.
 */
export const TEXT_RULE = 'Matches text in the operation id or its action, ignoring case; "apply config" and "apply_config" are the same.';

/** The text rule's reading of a string: ASCII lower case, `_` as a space. */
export function searchable(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase()).replaceAll('_', ' ');
}

const SQL_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const sqlSearchable = (column: string) => `translate(replace(${column}, '_', ' '), '${SQL_UPPER}', '${SQL_UPPER.toLowerCase()}')`;

const textField: FilterField = {
  name: 'q',
  read: (params) => ({ q: text(params.get('q')) }),
  write: (filters) => ({ q: filters.q?.trim() || undefined }),
  isSet: (filters) => filters.q !== undefined,
  predicate: (filters) => {
    const needle = searchable(filters.q ?? '');
    return (op) => searchable(op.id).includes(needle) || searchable(op.action).includes(needle);
  },
  jq: (filters) => `any((.id, .action) | gsub("_"; " ") | ascii_downcase; contains(${jqString(searchable(filters.q ?? ''))}))`,
  sql: (filters, params) => {
    const needle = params.add(searchable(filters.q ?? ''));
    // strpos, not LIKE: the text's own % and _ are plain characters.
    return `(strpos(${sqlSearchable('id')}, ${needle}) > 0 OR strpos(${sqlSearchable('action')}, ${needle}) > 0)`;
  },
};

/** Epoch seconds of an ISO time, fractions dropped (as jq's fromdateiso8601 reads a time). */
export const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1_000);

/** jq: the operation's creation in epoch seconds (jq reads no fractions: they are cut off first). */
export const JQ_CREATED_SECONDS = '(.created_at | sub("\\\\.[0-9]+"; "") | fromdateiso8601)';

/**
 * The time range, read to the second: created in or after `from`'s second, in or before `to`'s.
 * In the browser and in SQL as "at or after the start of from's second, before the end of to's".
 */
const timeRange: FilterField = {
  name: 'time range',
  read: (params) => ({ from: time(params.get('from')), to: time(params.get('to')) }),
  write: (filters) => ({ from: filters.from, to: filters.to }),
  isSet: (filters) => filters.from !== undefined || filters.to !== undefined,
  predicate: ({ from, to }) => {
    const start = from === undefined ? -Infinity : epochSeconds(from) * 1_000;
    const end = to === undefined ? Infinity : (epochSeconds(to) + 1) * 1_000;
    return (op) => {
      const created = Date.parse(op.created_at);
      return created >= start && created < end;
    };
  },
  jq: ({ from, to }) => {
    const tests: string[] = [];
    if (from !== undefined) tests.push(`${JQ_CREATED_SECONDS} >= ${epochSeconds(from)}`);
    if (to !== undefined) tests.push(`${JQ_CREATED_SECONDS} <= ${epochSeconds(to)}`);
    return `(${tests.join(' and ')})`;
  },
  sql: ({ from, to }, params) => {
    const tests: string[] = [];
    if (from !== undefined) tests.push(`created_at >= to_timestamp(${params.add(epochSeconds(from))}::double precision)`);
    if (to !== undefined) tests.push(`created_at < to_timestamp(${params.add(epochSeconds(to) + 1)}::double precision)`);
    return `(${tests.join(' AND ')})`;
  },
};

/** Every field, in the order the forms list them. */
export const FILTER_FIELDS: readonly FilterField[] = [status, action, idField('branch', 'branch_id'), idField('compute', 'endpoint_id'), textField, timeRange];
