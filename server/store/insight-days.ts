// Insights' reads of the per-day figures (docs/insights.md, "Per-day figures"): a range's whole UTC days from the
// figures kept by upsertOperations (day-figures.ts), the parts of days at its edges from the operations, bucketed the
// same way; percentiles from the buckets, within 1 %.
import { NO_FILTERS, type HistoryFilters } from '../../src/model/filters';
import { isoSecond } from '../../src/model/insight-figures';
import type { Db, SqlValue } from './db';
import { NO_DURATION_BUCKET, QUEUE_MS_SQL, QUEUED_SQL } from './day-figures';
import {
  figureStatementStart,
  DAY_MS,
  evenSlices,
  figuresPart,
  inTurns,
  overEdges,
  SECOND_MS,
  SERVER_SLICES,
  SERVER_SLICES_AT_ONCE,
  type FigureConditions,
  type FigureRow,
} from './insight-statements';
import { figureTally, type FigurePart } from './insight-tally';
/** A time range filter's whole UTC days (as dates, the end excluded), and the parts of days before and after them. */
export interface DaySplit {
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
  const { key, values, condition, failed, uncounted, finished } = figureStatementStart(projectIds, groupBy, where);
  const add = (value: SqlValue) => {
    values.push(value);
    return `$${values.length}`;
  };
  let figures: string;
  let queues: string;
  if (source === 'edges') {
    const edges = [...current.edges, ...previous.edges];
    const inCurrent = condition(where.current);
    figures = overEdges(
      edges,
      condition,
      (inEdge) => `SELECT ${key} AS key, ${inCurrent} AS current, status, figure_bucket(total_duration_ms) AS bucket, 1 AS runs,
        CASE WHEN failures_count > 0 THEN 1 ELSE 0 END AS retried
      FROM operations WHERE project_id = ANY($1::text[]) AND ${inEdge}`,
    );
    queues = overEdges(
      edges,
      condition,
      (inEdge) => `SELECT ${key} AS key, ${inCurrent} AS current, figure_bucket(${QUEUE_MS_SQL}) AS bucket, 1 AS n
      FROM operations WHERE project_id = ANY($1::text[]) AND ${inEdge} AND ${QUEUED_SQL}`,
    );
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
export async function dayFigureRows(
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
