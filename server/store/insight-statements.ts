// How a figures read runs its statements (docs/insights.md, "How a read is cut"): the conditions as the history's
// filters write them in SQL, the memory a statement may group in, the slices a heavy read is cut into and how many run
// at once, and each project's size. The exact reads (insight-exact.ts) and the per-day figures' (insight-days.ts) both
// run on these; insights.ts chooses between them.
import { NO_FILTERS, sqlCondition, type HistoryFilters } from '../../src/model/filters';
import type { Db, SqlValue } from './db';

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
export function conditions(values: SqlValue[]) {
  return (filters: HistoryFilters): string => {
    const condition = sqlCondition(filters, values.length + 1);
    values.push(...condition.params);
    return `(${condition.where})`;
  };
}

/**
 * What every figures statement starts from: the column it groups by, `projectIds` as its $1, and the outcome
 * conditions (failed, uncounted, finished) numbered after it; `condition` numbers any further one on.
 */
export function figureStatementStart(projectIds: readonly string[], groupBy: 'project' | 'action', where: FigureConditions) {
  const values: SqlValue[] = [projectIds];
  const condition = conditions(values);
  return {
    key: groupBy === 'project' ? 'project_id' : 'action',
    values,
    condition,
    failed: condition(where.failed),
    uncounted: condition(where.uncounted),
    finished: condition(where.finished),
  };
}

/**
 * One time range holding both of `where`'s (from the earlier start to the later end), when both have both ends:
 * said beside "in the one or in the other", it gives the planner one range of creation times per project to read
 * from the index (operations_window), where the two ranges joined by OR it reads as a filter on every entry of
 * those projects. It selects nothing the two do not.
 */
export function spanOf({ current, previous }: Pick<FigureConditions, 'current' | 'previous'>): HistoryFilters | undefined {
  if (current.from === undefined || current.to === undefined || previous.from === undefined || previous.to === undefined) return undefined;
  const from = Date.parse(current.from) <= Date.parse(previous.from) ? current.from : previous.from;
  const to = Date.parse(current.to) >= Date.parse(previous.to) ? current.to : previous.to;
  return { ...NO_FILTERS, from, to };
}

/**
 * A statement over the operations created in any of `edges` (time ranges that do not overlap): `select`, given one
 * edge's condition, once per edge, joined by UNION ALL. Each edge is then one range of the window's index
 * (operations_window), read from the index alone; joined by OR, the edges were read as a bitmap of the table's rows,
 * a page of the table for each few operations (docs/benchmarks.md, "Ten million operations"). No edge: no row.
 */
export function overEdges(edges: readonly HistoryFilters[], condition: (filters: HistoryFilters) => string, select: (inEdge: string) => string): string {
  return edges.length > 0 ? edges.map((edge) => select(condition(edge))).join('\n      UNION ALL ') : select('FALSE');
}

/**
 * The memory a figures statement may sort in: over every project's 180 days at a million operations its sort
 * holds some 20 MB, which at the default 4 MB went to disk (docs/benchmarks.md, "The whole record at scale").
 */
const FIGURES_WORK_MEM = '64MB';

/**
 * On a server a heavy read is cut into this many slices (of its creation times, or of its days), run
 * SERVER_SLICES_AT_ONCE at a time on connections of the pool: a window's read takes both cores, not one
 * (docs/benchmarks.md, "Ten million operations").
 */
export const SERVER_SLICES = 4;
export const SERVER_SLICES_AT_ONCE = 2;

/** `tasks` run `atOnce` at a time, in order; their results in the tasks' order. */
export async function inTurns<T>(tasks: readonly (() => Promise<T>)[], atOnce: number): Promise<T[]> {
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
export function evenSlices(from: number, until: number, count: number, unit = 1): { from: number; until: number }[] {
  const step = Math.max(unit, Math.ceil((until - from) / count / unit) * unit);
  const slices: { from: number; until: number }[] = [];
  for (let at = from; at < until; at += step) slices.push({ from: at, until: Math.min(until, at + step) });
  return slices;
}

/** One statement of a figures read, with the memory its grouping may take. */
export function figuresPart<R>(db: Pick<Db, 'transaction'>, { text, values }: { text: string; values: SqlValue[] }): Promise<R[]> {
  return db
    .transaction(async (tx) => {
      await tx.query("SELECT set_config('work_mem', $1, true)", [FIGURES_WORK_MEM]);
      return tx.query<R>(text, values);
    })
    .then((result) => result.rows);
}

/** How many operations each of `projectIds` holds (operation_project_counts: a row each); one holding none is left out. */
export async function projectSizes(db: Pick<Db, 'transaction'>, projectIds: readonly string[]): Promise<ProjectSizes> {
  const { rows } = await db.transaction((tx) =>
    tx.query<{ project_id: string; operations: number }>(
      'SELECT project_id, operations::float8 AS operations FROM operation_project_counts WHERE project_id = ANY($1::text[]) AND operations <> 0',
      [projectIds],
    ),
  );
  return new Map(rows.map((row) => [row.project_id, row.operations]));
}

export type ProjectSizes = ReadonlyMap<string, number>;

/** Figure rows in one order whatever read gave them: by key, this window's before the one before. */
export function byKeyThenPeriod(a: { key: string; current: boolean }, b: { key: string; current: boolean }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : Number(b.current) - Number(a.current);
}

export const DAY_MS = 86_400_000;
export const SECOND_MS = 1_000;
