// Insights' SQL over operations: figures per project or per action over two time ranges, and a range's
// operations per bucket of time by status. Every condition is one of the history's filters in its own SQL form
// (src/features/history/filters: sqlCondition), handed in by the caller (server/insights/, from
// src/model/insight-figures.ts): what a figure counts is what the history filtered the same
// way lists.
import { NO_FILTERS, sqlCondition, type HistoryFilters } from '../../src/model/filters';
import { EXACT_PERCENTILE_RUNS, FIGURES_FROM_OPERATIONS, isoSecond } from '../../src/model/insight-figures';
import { NO_DURATION_BUCKET, QUEUE_MS_SQL, QUEUED_SQL } from './day-figures';
import type { Db, Queryable, SqlValue } from './db';

/** The conditions one figure query counts by, each a history filter (its SQL form is used as it is). */
export interface FigureConditions {
  /** The window and the one before it: time ranges. */
  current: HistoryFilters;
  previous: HistoryFilters;
  failed: HistoryFilters;
  uncounted: HistoryFilters;
  /** Whose `total_duration_ms` the percentiles are of. */
  finished: HistoryFilters;
}

export interface FigureRow {
  /** The project id or the action, as grouped. */
  key: string;
  period: 'current' | 'previous';
  runs: number;
  failed: number;
  uncounted: number;
  retried: number;
  p50_ms: number | null;
  p95_ms: number | null;
  queue_p50_ms: number | null;
  queued: number;
  /** The finished operations with a duration: what p50 and p95 are of. */
  timed: number;
}

/** Placeholders for several conditions in one statement: each filter's SQL form, numbered on from the values before it. */
function conditions(values: SqlValue[]) {
  return (filters: HistoryFilters): string => {
    const condition = sqlCondition(filters, values.length + 1);
    values.push(...condition.params);
    return `(${condition.where})`;
  };
}

/**
 * One time range holding both of `where`'s (from the earlier start to the later end), when both have both ends:
 * said beside "in the one or in the other", it gives the planner one range of creation times per project to read
 * from the index (operations_window), where the two ranges joined by OR it reads as a filter on every entry of
 * those projects. It selects nothing the two do not.
 */
function spanOf({ current, previous }: Pick<FigureConditions, 'current' | 'previous'>): HistoryFilters | undefined {
  if (current.from === undefined || current.to === undefined || previous.from === undefined || previous.to === undefined) return undefined;
  const from = Date.parse(current.from) <= Date.parse(previous.from) ? current.from : previous.from;
  const to = Date.parse(current.to) >= Date.parse(previous.to) ? current.to : previous.to;
  return { ...NO_FILTERS, from, to };
}

/**
 * The memory a figures statement may sort in: over every project's 180 days at a million operations its sort
 * holds some 20 MB, which at the default 4 MB went to disk (docs/benchmarks.md, "The whole record at scale").
 */
const FIGURES_WORK_MEM = '64MB';

/** One statement's counts for a key and range, and what its percentiles are taken of: the values (`v,v,…`) or buckets (`b:n,…`). */
interface FigurePart {
  key: string;
  current: boolean;
  runs: number;
  failed: number;
  uncounted: number;
  retried: number;
  durations: string;
  queues: string;
}

/**
 * Values gathered from statements' lists: those seen once (the rows' own durations) apart, those seen n times (the
 * figures' buckets) with their counts; each in the order they came.
 */
interface Counted {
  once: number[];
  values: number[];
  counts: number[];
}

const noneCounted = (): Counted => ({ once: [], values: [], counts: [] });

/**
 * The numbers of `value,value,…` onto `into`: whole numbers read digit by digit (a duration in milliseconds), any
 * other (a queue's fraction of a millisecond) by Number. Hundreds of thousands over every project's window: no
 * string is made for a whole number.
 */
function addValues(list: string, into: number[]): void {
  let start = 0;
  while (start < list.length) {
    let end = list.indexOf(',', start);
    if (end < 0) end = list.length;
    let value = 0;
    let whole = end > start;
    for (let at = start; at < end && whole; at++) {
      const digit = list.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) whole = false;
      else value = value * 10 + digit;
    }
    into.push(whole ? value : Number(list.slice(start, end)));
    start = end + 1;
  }
}

/** Adds a statement's list to `into`: `value,value,…` (each seen once) or `bucket:n,bucket:n,…`. */
function addListed(list: string, into: Counted): void {
  if (list === '') return;
  if (!list.includes(':')) {
    addValues(list, into.once);
    return;
  }
  for (const item of list.split(',')) {
    const colon = item.indexOf(':');
    if (colon < 0) into.once.push(Number(item));
    else {
      into.values.push(Number(item.slice(0, colon)));
      into.counts.push(Number(item.slice(colon + 1)));
    }
  }
}

const totalOf = ({ once, counts }: Counted) => counts.reduce((sum, n) => sum + n, once.length);

/**
 * The value at each share of `counted` by nearest rank, as percentile_disc takes it (the first value with at least
 * that share at or below it), each given as `valueOf` says (a bucket as the value it stands for). Values seen once
 * only are sorted as numbers in place (a typed array's own sort) and the rank read off; with counts, the values are
 * walked in order adding them up.
 */
function nearestRanks(counted: Counted, shares: readonly number[], valueOf: (value: number) => number): (number | null)[] {
  const total = totalOf(counted);
  if (total === 0) return shares.map(() => null);
  const ranks = shares.map((share) => Math.max(1, Math.ceil(share * total)));
  if (counted.values.length === 0) {
    const sorted = new Float64Array(counted.once).sort();
    return ranks.map((rank) => valueOf(sorted[rank - 1] ?? 0));
  }
  const values = [...counted.values, ...counted.once];
  const counts = [...counted.counts, ...counted.once.map(() => 1)];
  const order = values.map((_, i) => i).sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0));
  return ranks.map((rank) => {
    let upTo = 0;
    for (const i of order) {
      upTo += counts[i] ?? 0;
      if (upTo >= rank) return valueOf(values[i] ?? 0);
    }
    return null;
  });
}

/** A key and range's parts added up. */
type FigureSum = Omit<FigurePart, 'durations' | 'queues'> & { durations: Counted; queues: Counted };

/**
 * The parts of a read (one statement or several, cut anywhere) added up per key and range: counts summed, the
 * durations and queues gathered, the percentiles taken once over all of them (`valueOf`: what a listed value
 * stands for, itself for the rows' own values, a bucket's middle for the figures').
 */
function figureTally(valueOf: (value: number) => number) {
  const tally = new Map<string, FigureSum>();
  return {
    /** Adds a statement's parts; gives how many runs they held. */
    add(parts: readonly FigurePart[]): number {
      let runs = 0;
      for (const part of parts) {
        const id = `${part.current ? 'c' : 'p'}${part.key}`;
        let sum = tally.get(id);
        if (!sum) {
          const empty = { runs: 0, failed: 0, uncounted: 0, retried: 0, durations: noneCounted(), queues: noneCounted() };
          sum = { key: part.key, current: part.current, ...empty };
          tally.set(id, sum);
        }
        sum.runs += part.runs;
        sum.failed += part.failed;
        sum.uncounted += part.uncounted;
        sum.retried += part.retried;
        addListed(part.durations, sum.durations);
        addListed(part.queues, sum.queues);
        runs += part.runs;
      }
      return runs;
    },
    rows(): FigureRow[] {
      return [...tally.values()]
        .filter((sum) => sum.runs > 0)
        .sort(byKeyThenPeriod)
        .map((sum) => {
          const [p50 = null, p95 = null] = nearestRanks(sum.durations, [0.5, 0.95], valueOf);
          const [queueP50 = null] = nearestRanks(sum.queues, [0.5], valueOf);
          return {
            key: sum.key,
            period: sum.current ? 'current' : 'previous',
            runs: sum.runs,
            failed: sum.failed,
            uncounted: sum.uncounted,
            retried: sum.retried,
            p50_ms: p50,
            p95_ms: p95,
            queue_p50_ms: queueP50,
            queued: totalOf(sum.queues),
            timed: totalOf(sum.durations),
          };
        });
    },
  };
}

/**
 * The operations an exact read takes, as a subquery `o`: `projectIds`' operations created in either range, or in
 * `slice` of them (a range of creation times, its end excluded), or in one `period` alone, over the window's index
 * (operations_window), each with its key, its range and the conditions it meets.
 */
function exactSource(
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  slice: { from: string; until: string } | undefined,
  period?: 'current' | 'previous',
): { source: string; values: SqlValue[] } {
  const key = groupBy === 'project' ? 'project_id' : 'action';
  const values: SqlValue[] = [projectIds];
  const condition = conditions(values);
  const failed = condition(where.failed);
  const uncounted = condition(where.uncounted);
  const finished = condition(where.finished);
  let current: string;
  let inRanges: string;
  if (period) {
    current = period === 'current' ? 'TRUE' : 'FALSE';
    inRanges = condition(where[period]);
  } else {
    current = condition(where.current);
    inRanges = `(${current} OR ${condition(where.previous)})`;
  }
  // The index's range: the slice, or the span of both ranges (one period's own bounds are its range already).
  let within = '';
  if (slice) {
    values.push(slice.from, slice.until);
    within = ` AND created_at >= $${values.length - 1}::timestamptz AND created_at < $${values.length}::timestamptz`;
  } else if (!period) {
    const span = spanOf(where);
    if (span) within = ` AND ${condition(span)}`;
  }
  // The queue of an operation seen waiting and then running (the waiting first): between the first sighting of each,
  // which upsertOperations keeps on the operation (migration 008), turned into milliseconds only for those.
  const source = `(
       SELECT ${key} AS key, ${current} AS current, ${failed} AS failed, ${uncounted} AS uncounted,
         ${finished} AND total_duration_ms IS NOT NULL AS finished, total_duration_ms, coalesce(failures_count > 0, false) AS retried,
         running_seen_at - waiting_seen_at AS queue, running_seen_at >= waiting_seen_at AS queued
       FROM operations WHERE project_id = ANY($1::text[]) AND ${inRanges}${within}
     ) o`;
  return { source, values };
}

/** Per key and range: the counts of an exact read's operations. */
const EXACT_COUNTS = `key, current, count(*)::int AS runs, count(*) FILTER (WHERE failed)::int AS failed,
       count(*) FILTER (WHERE uncounted)::int AS uncounted, count(*) FILTER (WHERE retried)::int AS retried`;

/** A queue in milliseconds, as a number (the one expression both kinds of exact read take it by). */
const QUEUE_MS = '(extract(epoch FROM queue)::float8 * 1000)';

/**
 * The statement of an exact read (exactSource) whose percentiles are taken in Node, over this and other statements'
 * parts: per key and range, the counts, and the durations and queues themselves, which figureTally gathers.
 */
function exactStatement(
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  slice: { from: string; until: string } | undefined,
): { text: string; values: SqlValue[] } {
  const { source, values } = exactSource(projectIds, groupBy, where, slice);
  const text = `SELECT ${EXACT_COUNTS},
       coalesce(string_agg(total_duration_ms::text, ',') FILTER (WHERE finished), '') AS durations,
       coalesce(string_agg(${QUEUE_MS}::text, ',') FILTER (WHERE queued), '') AS queues
     FROM ${source}
     GROUP BY key, current`;
  return { text, values };
}

/** A key and range's figures as a statement gives them whole, its percentiles taken by Postgres. */
type WholeFigureRow = Omit<FigureRow, 'period'> & { current: boolean };

/**
 * The statement of an exact read (exactSource) holding every operation of each of its keys in `period`, so that
 * Postgres takes their percentiles itself, as nearestRanks does (percentile_disc: the first value with at least that
 * share at or below it), and nothing is listed to Node. One period a statement: the index gives its rows in the
 * projects' order, grouped as they come, where both periods at once were sorted by period first (a tenth slower).
 */
function wholeStatement(projectIds: readonly string[], where: FigureConditions, period: 'current' | 'previous'): { text: string; values: SqlValue[] } {
  const { source, values } = exactSource(projectIds, 'project', where, undefined, period);
  const text = `SELECT key, current, runs, failed, uncounted, retried, durations[1] AS p50_ms, durations[2] AS p95_ms,
       queue_p50_ms, timed, queued
     FROM (
       SELECT ${EXACT_COUNTS}, count(*) FILTER (WHERE finished)::int AS timed, count(*) FILTER (WHERE queued)::int AS queued,
         percentile_disc(ARRAY[0.5, 0.95]::float8[]) WITHIN GROUP (ORDER BY total_duration_ms) FILTER (WHERE finished) AS durations,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY ${QUEUE_MS}) FILTER (WHERE queued) AS queue_p50_ms
       FROM ${source}
       GROUP BY key, current
     ) f`;
  return { text, values };
}

/**
 * On a server a heavy read is cut into this many slices (of its creation times, or of its days), run
 * SERVER_SLICES_AT_ONCE at a time on connections of the pool: a window's read takes both cores, not one
 * (docs/benchmarks.md, "Ten million operations").
 */
const SERVER_SLICES = 4;
const SERVER_SLICES_AT_ONCE = 2;

/** `tasks` run `atOnce` at a time, in order; their results in the tasks' order. */
async function inTurns<T>(tasks: readonly (() => Promise<T>)[], atOnce: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const at = next++;
      const task = tasks[at];
      if (task) results[at] = await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, tasks.length) }, worker));
  return results;
}

/** [from, until) cut into `count` slices of whole `unit`s (the last one to `until`), none empty. */
function evenSlices(from: number, until: number, count: number, unit = 1): { from: number; until: number }[] {
  const step = Math.max(unit, Math.ceil((until - from) / count / unit) * unit);
  const slices: { from: number; until: number }[] = [];
  for (let at = from; at < until; at += step) slices.push({ from: at, until: Math.min(until, at + step) });
  return slices;
}

/** One statement of a figures read, with the memory its grouping may take. */
function figuresPart<R>(db: Pick<Db, 'transaction'>, { text, values }: { text: string; values: SqlValue[] }): Promise<R[]> {
  return db
    .transaction(async (tx) => {
      await tx.query("SELECT set_config('work_mem', $1, true)", [FIGURES_WORK_MEM]);
      return tx.query<R>(text, values);
    })
    .then((result) => result.rows);
}

/** How many operations each of `projectIds` holds (operation_counts: a few rows each); one holding none is left out. */
async function projectSizes(db: Pick<Db, 'transaction'>, projectIds: readonly string[]): Promise<ProjectSizes> {
  const { rows } = await db.transaction((tx) =>
    tx.query<{ project_id: string; operations: number }>(
      'SELECT project_id, sum(operations)::float8 AS operations FROM operation_counts WHERE project_id = ANY($1::text[]) GROUP BY project_id',
      [projectIds],
    ),
  );
  return new Map(rows.map((row) => [row.project_id, row.operations]));
}

type ProjectSizes = ReadonlyMap<string, number>;

/**
 * `projectIds` cut into at most `count` groups holding about as many operations each (`size`), the largest project
 * first into the group holding fewest so far.
 */
function projectGroups(projectIds: readonly string[], size: ProjectSizes, count: number): string[][] {
  const groups = Array.from({ length: Math.min(count, projectIds.length) }, () => ({ ids: [] as string[], operations: 0 }));
  for (const id of [...projectIds].sort((a, b) => (size.get(b) ?? 0) - (size.get(a) ?? 0))) {
    const fewest = groups.reduce((least, group) =>
      group.operations < least.operations || (group.operations === least.operations && group.ids.length < least.ids.length) ? group : least,
    );
    fewest.ids.push(id);
    fewest.operations += size.get(id) ?? 0;
  }
  return groups.map((group) => group.ids);
}

/** Figure rows in one order whatever read gave them: by key, this window's before the one before. */
function byKeyThenPeriod(a: { key: string; current: boolean }, b: { key: string; current: boolean }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : Number(b.current) - Number(a.current);
}

const PERIODS = ['current', 'previous'] as const;

/**
 * On a server, an exact read grouped by project: the projects cut into SERVER_SLICES groups of about as many
 * operations, a statement a group and period, SERVER_SLICES_AT_ONCE side by side, each taking its projects'
 * percentiles itself (wholeStatement). Cut by time instead, each project's values had to be listed to Node to be
 * gathered there: at ten million operations, a third of `/insights`' time (docs/benchmarks.md, "Ten million operations").
 */
async function exactRowsByProjects(
  db: Pick<Db, 'transaction'>,
  projectIds: readonly string[],
  where: FigureConditions,
  sizes: ProjectSizes | undefined,
): Promise<FigureRow[]> {
  const groups = projectGroups(projectIds, sizes ?? (await projectSizes(db, projectIds)), SERVER_SLICES);
  const parts = await inTurns(
    groups.flatMap((ids) => PERIODS.map((period) => () => figuresPart<WholeFigureRow>(db, wholeStatement(ids, where, period)))),
    SERVER_SLICES_AT_ONCE,
  );
  return parts
    .flat()
    .filter((row) => row.runs > 0)
    .sort(byKeyThenPeriod)
    .map(({ current, ...row }) => ({ ...row, period: current ? 'current' : 'previous' }));
}

/** How a sliced read's first statement is cut: this share of the span (at least a second). */
const FIRST_SLICE_SHARE = 1 / 256;

/**
 * The figures of `projectIds`' operations created in either range, grouped by project or by action and by range,
 * the queue's with them, every value read: percentiles exact. A group with no operation in a range has no row for
 * it. On a server, grouped by project, statements over groups of the projects (exactRowsByProjects); grouped by
 * action (or of one project), statements over SERVER_SLICES even slices of the creation times, side by side. On the
 * embedded store (`heavyStatementRows`), statements over consecutive slices of the creation times, each cut to hold
 * about that many operations from what the one before it held, so that a request's read waits for one short
 * statement at most (docs/architecture.md, "The store"). `sizes`: each project's operations, when the caller has
 * read them already (projectSizes).
 */
export async function exactFigureRows(
  db: Pick<Db, 'query' | 'transaction' | 'heavyStatementRows'>,
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  sizes?: ProjectSizes,
): Promise<FigureRow[]> {
  if (projectIds.length === 0) return [];
  const perStatement = db.heavyStatementRows;
  if (perStatement === undefined && groupBy === 'project' && projectIds.length > 1) return exactRowsByProjects(db, projectIds, where, sizes);
  const tally = figureTally((ms) => ms);
  const span = spanOf(where);
  if (span?.from === undefined || span.to === undefined) {
    tally.add(await figuresPart<FigurePart>(db, exactStatement(projectIds, groupBy, where, undefined)));
    return tally.rows();
  }
  if (perStatement === undefined) {
    const slices = evenSlices(Date.parse(span.from), Date.parse(span.to) + SECOND_MS, SERVER_SLICES).map((slice) => ({
      from: new Date(slice.from).toISOString(),
      until: new Date(slice.until).toISOString(),
    }));
    for (const parts of await inTurns(
      slices.map((slice) => () => figuresPart<FigurePart>(db, exactStatement(projectIds, groupBy, where, slice))),
      SERVER_SLICES_AT_ONCE,
    ))
      tally.add(parts);
    return tally.rows();
  }
  const end = Date.parse(span.to) + SECOND_MS;
  let from = Date.parse(span.from);
  let length = Math.max(SECOND_MS, Math.ceil((end - from) * FIRST_SLICE_SHARE));
  while (from < end) {
    const until = Math.min(end, from + length);
    const { text, values } = exactStatement(projectIds, groupBy, where, { from: new Date(from).toISOString(), until: new Date(until).toISOString() });
    const runs = tally.add((await db.query<FigurePart>(text, values)).rows);
    from = until;
    // The next slice as long as should hold `perStatement` at this one's rate, at most four times longer or shorter.
    length = runs === 0 ? length * 4 : Math.min(length * 4, Math.max(length / 4, (length * perStatement) / runs));
    length = Math.max(SECOND_MS, Math.ceil(length));
  }
  return tally.rows();
}

export interface BucketRow {
  /** Whole buckets since the epoch (UTC): the bucket starts at bucket × size. */
  bucket: number;
  status: string;
  operations: number;
}

/**
 * One project's operations created in `range` (a time range filter), per bucket of `bucketMs` and API status. Days:
 * the range's whole days from the per-day figures, the parts of days at its edges from the operations.
 */
export async function bucketRows(db: Queryable, projectId: string, range: HistoryFilters, bucketMs: number): Promise<BucketRow[]> {
  const split = bucketMs === DAY_MS ? splitDays(range) : undefined;
  const values: SqlValue[] = [projectId, bucketMs / 1_000];
  const condition = conditions(values);
  const inRange = split ? (split.edges.length > 0 ? `(${split.edges.map(condition).join(' OR ')})` : 'FALSE') : condition(range);
  const rowsPart = `SELECT floor(extract(epoch FROM created_at) / $2::int)::int AS bucket, status, count(*)::int AS operations
     FROM operations WHERE project_id = $1 AND ${inRange}
     GROUP BY 1, 2`;
  let daysPart = '';
  if (split?.days) {
    values.push(split.days.from, split.days.until);
    daysPart = `SELECT (day - DATE '1970-01-01') AS bucket, status, sum(runs)::int AS operations
     FROM operation_day_project_figures WHERE project_id = $1 AND day >= $${values.length - 1}::date AND day < $${values.length}::date
     GROUP BY 1, 2 HAVING sum(runs) <> 0
     UNION ALL `;
  }
  const { rows } = await db.query<BucketRow>(`SELECT * FROM (${daysPart}${rowsPart}) b ORDER BY 1, 2`, values);
  return rows;
}

const DAY_MS = 86_400_000;
const SECOND_MS = 1_000;

/** A time range filter's whole UTC days (as dates, the end excluded), and the parts of days before and after them. */
interface DaySplit {
  days: { from: string; until: string } | undefined;
  edges: HistoryFilters[];
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Undefined when the filter is not a range with both ends on whole seconds (then only the rows can answer it). */
export function splitDays(range: HistoryFilters): DaySplit | undefined {
  if (range.from === undefined || range.to === undefined) return undefined;
  const start = Date.parse(range.from);
  const end = Date.parse(range.to) + SECOND_MS;
  if (Number.isNaN(start) || Number.isNaN(end) || start % SECOND_MS !== 0 || end % SECOND_MS !== 0 || end <= start) return undefined;
  const first = Math.ceil(start / DAY_MS);
  const last = Math.floor(end / DAY_MS);
  if (last <= first) return { days: undefined, edges: [range] };
  const edge = (from: number, until: number): HistoryFilters => ({ ...NO_FILTERS, from: isoSecond(from), to: isoSecond(until - SECOND_MS) });
  const edges = [...(start < first * DAY_MS ? [edge(start, first * DAY_MS)] : []), ...(last * DAY_MS < end ? [edge(last * DAY_MS, end)] : [])];
  return { days: { from: dateOf(first), until: dateOf(last) }, edges };
}

/** Where one statement of a per-day figures read reads: a range of whole days of the figures, or the edges' operations. */
type DayPartSource = { days: { from: string; until: string } } | 'edges';

/**
 * One statement of a per-day figures read: per key and range, the counts and the histograms (`bucket:n` pairs) of
 * the whole days in `source.days` (from the per-day figures), or of the parts of days at the ranges' edges (from the
 * operations, bucketed as the figures are).
 */
function dayPartStatement(
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  current: DaySplit,
  previous: DaySplit,
  source: DayPartSource,
): { text: string; values: SqlValue[] } {
  const key = groupBy === 'project' ? 'project_id' : 'action';
  const values: SqlValue[] = [projectIds];
  const add = (value: SqlValue) => {
    values.push(value);
    return `$${values.length}`;
  };
  const condition = conditions(values);
  const failed = condition(where.failed);
  const uncounted = condition(where.uncounted);
  const finished = condition(where.finished);
  let figures: string;
  let queues: string;
  if (source === 'edges') {
    const edges = [...current.edges, ...previous.edges];
    const inEdges = edges.length > 0 ? `(${edges.map(condition).join(' OR ')})` : 'FALSE';
    const inCurrent = condition(where.current);
    figures = `SELECT ${key} AS key, ${inCurrent} AS current, status, figure_bucket(total_duration_ms) AS bucket, 1 AS runs,
        CASE WHEN failures_count > 0 THEN 1 ELSE 0 END AS retried
      FROM operations WHERE project_id = ANY($1::text[]) AND ${inEdges}`;
    queues = `SELECT ${key} AS key, ${inCurrent} AS current, figure_bucket(${QUEUE_MS_SQL}) AS bucket, 1 AS n
      FROM operations WHERE project_id = ANY($1::text[]) AND ${inEdges} AND ${QUEUED_SQL}`;
  } else {
    const dayIn = (split: DaySplit) => (split.days ? `(day >= ${add(split.days.from)}::date AND day < ${add(split.days.until)}::date)` : 'FALSE');
    const currentDays = dayIn(current);
    // The slice's days as one range of the key's index, each day then tested: two ranges joined by OR are read as a
    // bitmap of the table's rows, scattered over it, where one range is read from the index alone.
    const days = `day >= ${add(source.days.from)}::date AND day < ${add(source.days.until)}::date AND (${currentDays} OR ${dayIn(previous)})`;
    // Grouped by project, the sums per project alone (a fifth of the rows of the busiest).
    const [figureTable, queueTable] =
      groupBy === 'project' ? ['operation_day_project_figures', 'operation_day_project_queues'] : ['operation_day_figures', 'operation_day_queues'];
    figures = `SELECT ${key} AS key, ${currentDays} AS current, status, duration_bucket AS bucket, runs, retried
      FROM ${figureTable} WHERE project_id = ANY($1::text[]) AND ${days}`;
    queues = `SELECT ${key} AS key, ${currentDays} AS current, queue_bucket AS bucket, queued AS n
      FROM ${queueTable} WHERE project_id = ANY($1::text[]) AND ${days}`;
  }
  const text = `WITH parts AS (
       SELECT key COLLATE "C" AS key, current, status, bucket, sum(runs) AS runs, sum(retried) AS retried
       FROM (${figures}) f GROUP BY 1, 2, 3, 4 HAVING sum(runs) <> 0 OR sum(retried) <> 0
     ),
     counts AS (
       SELECT key, current, sum(runs)::int AS runs, coalesce(sum(runs) FILTER (WHERE ${failed}), 0)::int AS failed,
         coalesce(sum(runs) FILTER (WHERE ${uncounted}), 0)::int AS uncounted, sum(retried)::int AS retried,
         coalesce(string_agg(bucket || ':' || runs, ',') FILTER (WHERE ${finished} AND bucket <> ${NO_DURATION_BUCKET} AND runs <> 0), '') AS durations
       FROM parts GROUP BY 1, 2
     ),
     queues AS (
       SELECT key, current, string_agg(bucket || ':' || n, ',') AS queues FROM (
         SELECT key COLLATE "C" AS key, current, bucket, sum(n) AS n FROM (${queues}) q GROUP BY 1, 2, 3 HAVING sum(n) <> 0
       ) b GROUP BY 1, 2
     )
     SELECT c.key, c.current, c.runs, c.failed, c.uncounted, c.retried, c.durations, coalesce(q.queues, '') AS queues
     FROM counts c LEFT JOIN queues q ON q.key = c.key AND q.current = c.current`;
  return { text, values };
}

/** The days of a per-day figures read (both ranges' whole days) cut into `count` slices of whole days. */
function daySlices(current: DaySplit, previous: DaySplit, count: number): { from: string; until: string }[] {
  const days = [current.days, previous.days].filter((d) => d !== undefined);
  if (days.length === 0) return [];
  const from = Math.min(...days.map((d) => Date.parse(d.from)));
  const until = Math.max(...days.map((d) => Date.parse(d.until)));
  return evenSlices(from, until, count, DAY_MS).map((slice) => ({ from: dateOf(slice.from / DAY_MS), until: dateOf(slice.until / DAY_MS) }));
}

/**
 * The figures of the ranges' whole days from the per-day figures and of the parts of days at their edges from the
 * operations, percentiles from the buckets. On a server the days are cut into SERVER_SLICES slices, run side by
 * side; on the embedded store one statement after the other, a request's read going between them.
 */
async function dayFigureRows(
  db: Pick<Db, 'transaction' | 'heavyStatementRows'>,
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  current: DaySplit,
  previous: DaySplit,
): Promise<FigureRow[]> {
  const sources: DayPartSource[] = [
    ...daySlices(current, previous, db.heavyStatementRows === undefined ? SERVER_SLICES : EMBEDDED_DAY_SLICES).map((days) => ({ days })),
    ...(current.edges.length + previous.edges.length > 0 ? ['edges' as const] : []),
  ];
  const parts = await inTurns(
    sources.map((source) => () => figuresPart<FigurePart>(db, dayPartStatement(projectIds, groupBy, where, current, previous, source))),
    db.heavyStatementRows === undefined ? SERVER_SLICES_AT_ONCE : 1,
  );
  const tally = figureTally(bucketMs);
  for (const rows of parts) tally.add(rows);
  return tally.rows();
}

/** On the embedded store, a per-day figures read's days in this many statements (a project of a million operations). */
const EMBEDDED_DAY_SLICES = 8;

/**
 * The value a bucket stands for (figure_bucket_ms of migration operation_day_figures): its geometric middle, within
 * 1 % of every value in it; 0 for the bucket of durations of zero or less.
 */
export function bucketMs(bucket: number): number {
  return bucket === ZERO_DURATION_BUCKET ? 0 : Math.exp((bucket + 0.5) * Math.log(1.02));
}

/** figure_bucket's value for a duration of zero or less. */
const ZERO_DURATION_BUCKET = -32767;

export interface FigureReadOptions {
  /** Percentiles exact when the read's runs are at most this many (EXACT_PERCENTILE_RUNS). */
  exactUpTo?: number;
  /** The per-day figures read for the projects holding at least this many operations (FIGURES_FROM_OPERATIONS). */
  figuresFrom?: number;
}

/**
 * The figures of `projectIds`' operations created in either range, grouped by project or by action and by range
 * (docs/insights.md, "Per-day figures"). A project holding `figuresFrom` operations or more: counts exactly as the
 * operations give them, from the per-day figures for the ranges' whole days and from the operations for the parts of
 * days at their edges, percentiles from the duration buckets, within 1 %; unless the read holds no more than
 * `exactUpTo` runs. Every other project (a few operations a day, which the per-day figures hardly sum: reading them is
 * slower than reading the operations) and every small read: from the operations, percentiles exact (exactFigureRows).
 * A group with no operation in a range has no row for it.
 */
export async function figureRows(
  db: Pick<Db, 'query' | 'transaction' | 'heavyStatementRows'>,
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  { exactUpTo = EXACT_PERCENTILE_RUNS, figuresFrom = FIGURES_FROM_OPERATIONS }: FigureReadOptions = {},
): Promise<FigureRow[]> {
  if (projectIds.length === 0) return [];
  const current = splitDays(where.current);
  const previous = splitDays(where.previous);
  if (!current || !previous) return exactFigureRows(db, projectIds, groupBy, where);
  // Each project's size, read once: which projects are big, and how the exact read of the rest is cut.
  const sizes = await projectSizes(db, projectIds);
  const big = new Set(figuresFrom <= 0 ? projectIds : projectIds.filter((id) => (sizes.get(id) ?? 0) >= figuresFrom));
  // Grouped by action, the projects' rows share keys: one source for all of them.
  const fromFigures = groupBy === 'action' ? (big.size > 0 ? [...projectIds] : []) : projectIds.filter((id) => big.has(id));
  if (fromFigures.length === 0) return exactFigureRows(db, projectIds, groupBy, where, sizes);
  const chosen = new Set(fromFigures);
  const rest = projectIds.filter((id) => !chosen.has(id));
  // On a server the two reads go side by side; on the embedded store, one statement at a time anyway.
  const [rows, restRows] = await Promise.all([
    dayFigureRows(db, fromFigures, groupBy, where, current, previous),
    rest.length > 0 ? exactFigureRows(db, rest, groupBy, where, sizes) : Promise.resolve([]),
  ]);
  const runs = rows.reduce((sum, row) => sum + row.runs, 0);
  if (runs <= exactUpTo) return [...restRows, ...(await exactFigureRows(db, fromFigures, groupBy, where, sizes))];
  return [...rows, ...restRows];
}
