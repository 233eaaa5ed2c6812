// Insights' SQL over operations: figures per project or per action over two time ranges, and a range's
// operations per bucket of time by status. Every condition is one of the history's filters in its own SQL form
// (src/features/history/filters: sqlCondition), handed in by the caller (server/insights/, from
// src/model/insight-figures.ts): what a figure counts is what the history filtered the same
// way lists.
import { NO_FILTERS, sqlCondition, type HistoryFilters } from '../../src/model/filters';
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

/**
 * The figures of `projectIds`' operations created in either range, grouped by project or by action and by
 * range, the queue's with them, in one statement over the window's index (operations_window). A group with no
 * operation in a range has no row for it.
 */
export async function figureRows(
  db: Pick<Db, 'transaction'>,
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
): Promise<FigureRow[]> {
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
  // The queue of an operation seen waiting and then running (the waiting first): between the first sighting of each,
  // which upsertOperations keeps on the operation (migration 008). Its median is taken over the intervals and only
  // that one turned into milliseconds (the conversion keeps their order: the same value), and the range stays a
  // boolean until the end: per row, extract's numeric and a text sort key took the embedded store a third of its time.
  const { rows } = await db.transaction(async (tx) => {
    await tx.query("SELECT set_config('work_mem', $1, true)", [FIGURES_WORK_MEM]);
    return tx.query<FigureRow>(
      `SELECT key, CASE WHEN current THEN 'current' ELSE 'previous' END AS period, count(*)::int AS runs,
         count(*) FILTER (WHERE failed)::int AS failed, count(*) FILTER (WHERE uncounted)::int AS uncounted, count(*) FILTER (WHERE retried)::int AS retried,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY total_duration_ms) FILTER (WHERE finished) AS p50_ms,
         percentile_disc(0.95) WITHIN GROUP (ORDER BY total_duration_ms) FILTER (WHERE finished) AS p95_ms,
         extract(epoch FROM percentile_disc(0.5) WITHIN GROUP (ORDER BY queue) FILTER (WHERE queued))::float8 * 1000 AS queue_p50_ms,
         count(*) FILTER (WHERE queued)::int AS queued
       FROM (
         SELECT ${key} AS key, ${current} AS current, ${failed} AS failed, ${uncounted} AS uncounted,
           ${finished} AND total_duration_ms IS NOT NULL AS finished, total_duration_ms, coalesce(failures_count > 0, false) AS retried,
           running_seen_at - waiting_seen_at AS queue, running_seen_at >= waiting_seen_at AS queued
         FROM operations WHERE project_id = ANY($1::text[]) AND (${current} OR ${previous})${within}
       ) o
       GROUP BY key, current ORDER BY key, current DESC`,
      values,
    );
  });
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
