// Insights' SQL over operations and operation_transitions: figures per project or per action over two time
// ranges, and a range's operations per bucket of time by status. Every condition is one of the history's
// filters in its own SQL form (src/features/history/filters: sqlCondition), handed in by the caller
// (server/insights/, from src/features/history/insights/insight-figures.ts): what a figure counts is what
// the history filtered the same way lists.
import { NO_FILTERS, sqlCondition, type HistoryFilters } from '../../src/features/history/filters/filters';
import type { Queryable, SqlValue } from './db';

/** The conditions one figure query counts by, each a history filter (its SQL form is used as it is). */
export interface FigureConditions {
  /** The window and the one before it: time ranges. */
  current: HistoryFilters;
  previous: HistoryFilters;
  failed: HistoryFilters;
  uncounted: HistoryFilters;
  /** Whose `total_duration_ms` the percentiles are of. */
  finished: HistoryFilters;
  /** The queue is first seen `waiting` to first seen `running`, by operation_transitions; `since`: the earlier range's start. */
  queue: { waiting: string; running: string; since: string };
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
 * The figures of `projectIds`' operations created in either range, grouped by project or by action and by
 * range, the queue's with them: two statements, neither joining the whole window to the transitions (the
 * embedded store keeps no planner statistics, and a join it costs as one row a side ran once per operation).
 * A group with no operation in a range has no row for it.
 */
export async function figureRows(db: Queryable, projectIds: readonly string[], groupBy: 'project' | 'action', where: FigureConditions): Promise<FigureRow[]> {
  if (projectIds.length === 0) return [];
  const key = groupBy === 'project' ? 'project_id' : 'action';
  const values: SqlValue[] = [projectIds];
  const condition = conditions(values);
  const current = condition(where.current);
  const previous = condition(where.previous);
  const failed = condition(where.failed);
  const uncounted = condition(where.uncounted);
  const finished = condition(where.finished);
  const span = spanOf(where);
  const within = span ? ` AND ${condition(span)}` : '';
  const figures = db.query<Omit<FigureRow, 'queue_p50_ms' | 'queued'>>(
    `SELECT key, period, count(*)::int AS runs, count(*) FILTER (WHERE failed)::int AS failed, count(*) FILTER (WHERE uncounted)::int AS uncounted,
       count(*) FILTER (WHERE retried)::int AS retried,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY total_duration_ms) FILTER (WHERE finished) AS p50_ms,
       percentile_disc(0.95) WITHIN GROUP (ORDER BY total_duration_ms) FILTER (WHERE finished) AS p95_ms
     FROM (
       SELECT ${key} AS key, CASE WHEN ${current} THEN 'current' ELSE 'previous' END AS period, ${failed} AS failed, ${uncounted} AS uncounted,
         ${finished} AND total_duration_ms IS NOT NULL AS finished, total_duration_ms, coalesce(failures_count > 0, false) AS retried
       FROM operations WHERE project_id = ANY($1::text[]) AND (${current} OR ${previous})${within}
     ) o
     GROUP BY key, period ORDER BY key, period`,
    values,
  );
  // Both at once: a Postgres server answers them on two connections (PGlite, one at a time).
  const [{ rows }, queues] = await Promise.all([figures, queueRows(db, projectIds, key, where)]);
  const queueOf = new Map(queues.map((row) => [`${row.period}\u0000${row.key}`, row]));
  return rows.map((row) => {
    const queue = queueOf.get(`${row.period}\u0000${row.key}`);
    return { ...row, queue_p50_ms: queue?.queue_p50_ms ?? null, queued: queue?.queued ?? 0 };
  });
}

/**
 * The queue per group and range: for each operation created in either range whose status was seen both waiting
 * and running (the waiting first), the time between the first sighting of each; their median. Driven by those
 * transitions (few: what the collector saw change), each operation found by its key.
 */
async function queueRows(db: Queryable, projectIds: readonly string[], key: 'project_id' | 'action', where: FigureConditions): Promise<Pick<FigureRow, 'key' | 'period' | 'queue_p50_ms' | 'queued'>[]> {
  const values: SqlValue[] = [projectIds];
  const condition = conditions(values);
  const current = condition(where.current);
  const previous = condition(where.previous);
  // Without the span of figureRows: with it, a planner without statistics (PGlite) finds each operation by its
  // project and time range rather than by its key, reading the whole window once per transition.
  // An operation's status is seen after it is created: no transition of one created in either range is older than both.
  values.push(where.queue.waiting, where.queue.running, where.queue.since);
  const [waiting, running, since] = [`$${values.length - 2}`, `$${values.length - 1}`, `$${values.length}::timestamptz`];
  const { rows } = await db.query<Pick<FigureRow, 'key' | 'period' | 'queue_p50_ms' | 'queued'>>(
    `SELECT key, period, percentile_disc(0.5) WITHIN GROUP (ORDER BY queue_ms) AS queue_p50_ms, count(*)::int AS queued
     FROM (
       SELECT o.${key} AS key, CASE WHEN ${current} THEN 'current' ELSE 'previous' END AS period,
         extract(epoch FROM q.running_at - q.waiting_at)::float8 * 1000 AS queue_ms
       FROM (
         SELECT t.project_id, t.operation_id, min(t.seen_at) FILTER (WHERE t.status = ${waiting}) AS waiting_at, min(t.seen_at) FILTER (WHERE t.status = ${running}) AS running_at
         FROM operation_transitions t
         WHERE t.project_id = ANY($1::text[]) AND t.status IN (${waiting}, ${running}) AND t.seen_at >= ${since}
         GROUP BY t.project_id, t.operation_id
       ) q
       JOIN operations o ON o.project_id = q.project_id AND o.id = q.operation_id
       WHERE q.running_at >= q.waiting_at AND (${current} OR ${previous})
     ) measured
     GROUP BY key, period`,
    values,
  );
  return rows;
}

export interface BucketRow {
  /** Whole buckets since the epoch (UTC): the bucket starts at bucket × size. */
  bucket: number;
  status: string;
  operations: number;
}

/** One project's operations created in `range` (a time range filter), per bucket of `bucketMs` and API status. */
export async function bucketRows(db: Queryable, projectId: string, range: HistoryFilters, bucketMs: number): Promise<BucketRow[]> {
  const values: SqlValue[] = [projectId, bucketMs / 1_000];
  const inRange = conditions(values)(range);
  const { rows } = await db.query<BucketRow>(
    `SELECT floor(extract(epoch FROM created_at) / $2::int)::int AS bucket, status, count(*)::int AS operations
     FROM operations WHERE project_id = $1 AND ${inRange}
     GROUP BY 1, 2 ORDER BY 1, 2`,
    values,
  );
  return rows;
}
