// Insights' exact reads (docs/insights.md, "How a read is cut"): figures taken from the operations themselves, every
// value read, so percentiles are exact; cut by groups of projects or slices of time, on a server side by side, on the
// embedded store one short statement after another.
import type { Db, SqlValue } from './db';
import {
  byKeyThenPeriod,
  figureStatementStart,
  evenSlices,
  figuresPart,
  inTurns,
  projectSizes,
  SECOND_MS,
  SERVER_SLICES,
  SERVER_SLICES_AT_ONCE,
  spanOf,
  type FigureConditions,
  type FigureRow,
  type ProjectSizes,
} from './insight-statements';
import { figureTally, type FigurePart } from './insight-tally';

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
  const { key, values, condition, failed, uncounted, finished } = figureStatementStart(projectIds, groupBy, where);
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

/** Per key (and range): the counts of an exact read's operations. */
const EXACT_COUNTS = `count(*)::int AS runs, count(*) FILTER (WHERE failed)::int AS failed,
       count(*) FILTER (WHERE uncounted)::int AS uncounted, count(*) FILTER (WHERE retried)::int AS retried`;

/**
 * A queue in milliseconds, as a number (the one expression both kinds of exact read take it by). date_part gives the
 * seconds as a float8 where extract gives a numeric, which cast back to float8 cost a sixth of a quiet project's read
 * (docs/benchmarks.md, "Ten million operations"); for a queue under a day the two are the same float8.
 */
const QUEUE_MS = "(date_part('epoch', queue) * 1000)";

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
  const text = `SELECT key, current, ${EXACT_COUNTS},
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
       SELECT key, ${period === 'current'} AS current, ${EXACT_COUNTS}, count(*) FILTER (WHERE finished)::int AS timed, count(*) FILTER (WHERE queued)::int AS queued,
         percentile_disc(ARRAY[0.5, 0.95]::float8[]) WITHIN GROUP (ORDER BY total_duration_ms) FILTER (WHERE finished) AS durations,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY ${QUEUE_MS}) FILTER (WHERE queued) AS queue_p50_ms
       FROM ${source}
       GROUP BY key
     ) f`;
  return { text, values };
}

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
