// Insights' SQL over operations: figures per project or per action over two time ranges, and a range's
// operations per bucket of time by status. Every condition is one of the history's filters in its own SQL form
// (src/features/history/filters: sqlCondition), handed in by the caller (server/insights/, from
// src/model/insight-figures.ts): what a figure counts is what the history filtered the same
// way lists. figureRows chooses for each project between the exact read (insight-exact.ts: every operation) and the
// per-day figures' (insight-days.ts: whole days summed); both run their statements on insight-statements.ts and add
// their parts up in insight-tally.ts.
import type { HistoryFilters } from '../../src/model/filters';
import { EXACT_PERCENTILE_RUNS, FIGURES_FROM_OPERATIONS } from '../../src/model/insight-figures';
import type { Db, Queryable, SqlValue } from './db';
import { dayFigureRows, splitDays } from './insight-days';
import { exactFigureRows } from './insight-exact';
import { conditions, DAY_MS, overEdges, projectSizes, type FigureConditions, type FigureRow } from './insight-statements';

export type { FigureConditions, FigureRow } from './insight-statements';

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
  // The range's operations: of its edges (each a range of the window's index), or of the whole range.
  const rowsIn = (where: string) => `SELECT created_at, status FROM operations WHERE project_id = $1 AND ${where}`;
  const rowsPart = `SELECT floor(extract(epoch FROM created_at) / $2::int)::int AS bucket, status, count(*)::int AS operations
     FROM (${split ? overEdges(split.edges, condition, rowsIn) : rowsIn(condition(range))}) o
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
