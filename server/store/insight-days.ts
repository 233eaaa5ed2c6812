// Insights' reads of the per-day figures (docs/insights.md, "Per-day figures"): a range's whole UTC days from the
// figures kept by upsertOperations (day-figures.ts), per project its whole UTC months from the per-month ones, the
// parts of days at its edges from the operations, bucketed the same way; percentiles from the buckets, within 1 %.
import { NO_FILTERS, type HistoryFilters } from '../../src/model/filters';
import { isoSecond } from '../../src/model/insight-figures';
import type { Db, SqlValue } from './db';
import { FIGURE_TABLES, NO_DURATION_BUCKET, QUEUE_MS_SQL, QUEUED_SQL } from './day-figures';
import {
  figureStatementStart,
  DAY_MS,
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

/** A range of whole days (dates, the end excluded) or whole months (their first days) of one of the two ranges. */
interface FigurePiece {
  unit: 'day' | 'month';
  from: string;
  until: string;
  current: boolean;
}

/** Where one statement of a per-day figures read reads: pieces of the figures, or the edges' operations. */
type DayPartSource = { pieces: FigurePiece[] } | 'edges';

/**
 * The figures and queues a read takes, by what it groups by and by unit. By action there are per-day figures only:
 * the busiest project's 90 days by action meet their target without (docs/benchmarks.md, "Ten million operations").
 */
const DAY_TABLES = {
  project: { day: FIGURE_TABLES.projectDay, month: FIGURE_TABLES.projectMonth },
  action: { day: FIGURE_TABLES.actionDay, month: undefined },
} as const;

/**
 * One statement of a per-day figures read: per key and range, the counts and the histograms (`bucket:n` pairs) of
 * `source.pieces` (whole days from the per-day figures, whole months from the per-month ones), or of the parts of
 * days at the ranges' edges (from the operations, bucketed as the figures are).
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
    // Each piece one range of its table's key, read from the index alone, joined by UNION ALL (as overEdges does):
    // ranges joined by OR are read as a bitmap of the table's rows, scattered over it.
    const inPiece = (piece: FigurePiece) => {
      const tables = DAY_TABLES[groupBy][piece.unit];
      if (tables === undefined) throw new Error(`No per-${piece.unit} figures by ${groupBy}`);
      const range = `project_id = ANY($1::text[]) AND ${piece.unit} >= ${add(piece.from)}::date AND ${piece.unit} < ${add(piece.until)}::date`;
      return { tables, range, current: piece.current ? 'TRUE' : 'FALSE' };
    };
    const pieces = source.pieces.map(inPiece);
    figures = pieces
      .map(
        ({ tables, range, current }) =>
          `SELECT ${key} AS key, ${current} AS current, status, duration_bucket AS bucket, runs, retried FROM ${tables.figures} WHERE ${range}`,
      )
      .join('\n      UNION ALL ');
    queues = pieces
      .map(
        ({ tables, range, current }) => `SELECT ${key} AS key, ${current} AS current, queue_bucket AS bucket, queued AS n FROM ${tables.queues} WHERE ${range}`,
      )
      .join('\n      UNION ALL ');
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

/** A date (`YYYY-MM-DD`) as whole days since the epoch, and back. */
const dayOf = (date: string) => Date.parse(`${date}T00:00:00.000Z`) / DAY_MS;

/** The first day of the month of `day` (whole days since the epoch), or of the month after it unless it is a first. */
function monthStart(day: number, after: boolean): number {
  const date = new Date(day * DAY_MS);
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
  return after && first < day ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS : first;
}

/**
 * A range's whole days as pieces of the figures: its whole UTC months (`byMonth`) from the per-month figures, the days
 * before and after them from the per-day ones; without whole months (or `byMonth`), its days.
 */
function wholeDayPieces(split: DaySplit, current: boolean, byMonth: boolean): { months: FigurePiece[]; days: FigurePiece[] } {
  if (!split.days) return { months: [], days: [] };
  const from = dayOf(split.days.from);
  const until = dayOf(split.days.until);
  const piece = (unit: FigurePiece['unit'], start: number, end: number): FigurePiece => ({ unit, from: dateOf(start), until: dateOf(end), current });
  const firstMonth = monthStart(from, true);
  const lastMonth = monthStart(until, false);
  if (!byMonth || firstMonth >= lastMonth) return { months: [], days: [piece('day', from, until)] };
  const days = [...(from < firstMonth ? [piece('day', from, firstMonth)] : []), ...(lastMonth < until ? [piece('day', lastMonth, until)] : [])];
  return { months: [piece('month', firstMonth, lastMonth)], days };
}

/** Pieces of days cut and gathered into `count` statements' worth of about as many days each, in order. */
function dayStatements(pieces: readonly FigurePiece[], count: number): FigurePiece[][] {
  const total = pieces.reduce((sum, piece) => sum + dayOf(piece.until) - dayOf(piece.from), 0);
  const each = Math.max(1, Math.ceil(total / Math.max(1, count)));
  const statements: FigurePiece[][] = [];
  let statement: FigurePiece[] = [];
  let held = 0;
  for (const piece of pieces) {
    let from = dayOf(piece.from);
    const until = dayOf(piece.until);
    while (from < until) {
      const end = Math.min(until, from + each - held);
      statement.push({ ...piece, from: dateOf(from), until: dateOf(end) });
      held += end - from;
      from = end;
      if (held === each) {
        statements.push(statement);
        statement = [];
        held = 0;
      }
    }
  }
  if (statement.length > 0) statements.push(statement);
  return statements;
}

/**
 * The figures of the ranges' whole days from the per-day figures (grouped by project, their whole months from the
 * per-month figures: a big project's month holds some ninth of its days' rows) and of the parts of days at their
 * edges from the operations, percentiles from the buckets. On a server the days are cut into SERVER_SLICES
 * statements (the months one of them), run side by side; on the embedded store one statement after the other, a
 * request's read going between them.
 */
export async function dayFigureRows(
  db: Pick<Db, 'transaction' | 'heavyStatementRows'>,
  projectIds: readonly string[],
  groupBy: 'project' | 'action',
  where: FigureConditions,
  current: DaySplit,
  previous: DaySplit,
): Promise<FigureRow[]> {
  const byMonth = DAY_TABLES[groupBy].month !== undefined;
  const whole = [wholeDayPieces(previous, false, byMonth), wholeDayPieces(current, true, byMonth)];
  const months = whole.flatMap((pieces) => pieces.months);
  const count = db.heavyStatementRows === undefined ? SERVER_SLICES : EMBEDDED_DAY_SLICES;
  const sources: DayPartSource[] = [
    ...(months.length > 0 ? [{ pieces: months }] : []),
    ...dayStatements(
      whole.flatMap((pieces) => pieces.days),
      count - (months.length > 0 ? 1 : 0),
    ).map((pieces) => ({ pieces })),
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
