// The per-day figures (docs/insights.md, "Per-day figures"; migration operation_day_figures): runs, retried and
// durations per project, UTC day of creation, action, status and duration bucket, and the queue per bucket (and per
// project alone, by day and by month: migrations operation_day_project_figures, operation_month_project_figures), kept by
// upsertOperations (server/store/operations.ts) in the statement that records an operation and made again from the
// operations by rebuildDayFigures (`npm run store:rebuild-figures`). Both write them with the statements below, so
// what the collector keeps and what a rebuild makes are the same sums. The buckets are the migration's SQL functions
// figure_bucket (2 % wide on a log scale) and figure_bucket_ms (a bucket's geometric middle: within 1 % of its values).
import type { Db } from './db';
import { inFeedTransaction } from './live-changes';

/** The per-day figures' tables, each a pair (figures, queues): by action and day, by project alone per day and per month. */
export const FIGURE_TABLES = {
  actionDay: { figures: 'operation_day_figures', queues: 'operation_day_queues' },
  projectDay: { figures: 'operation_day_project_figures', queues: 'operation_day_project_queues' },
  projectMonth: { figures: 'operation_month_project_figures', queues: 'operation_month_project_queues' },
} as const;

type FigureTables = (typeof FIGURE_TABLES)[keyof typeof FIGURE_TABLES];

/** figure_bucket's value for an operation without a duration. */
export const NO_DURATION_BUCKET = -32768;

/** The queue of an operation seen queued, in milliseconds: its two first sightings (migration 008), apart. */
export const QUEUE_MS_SQL = 'extract(epoch FROM running_seen_at - waiting_seen_at)::float8 * 1000';
/** Whether an operation was seen queued: seen waiting, then running. */
export const QUEUED_SQL = 'running_seen_at >= waiting_seen_at';

/**
 * The statements that add the operations of `source` (rows with created_at, action, status, total_duration_ms,
 * failures_count, waiting_seen_at and running_seen_at) to the per-day figures, each counted `weight` times
 * (1; or +1 and -1 to move an operation's share); `project` is the project id's SQL. With `merge`, sums that
 * come to nothing are left out and the rest added to what is kept; without, the tables are taken to be empty.
 */
export function dayFiguresInserts(
  source: string,
  project: string,
  weight: string,
  merge: boolean,
): {
  figures: string;
  queues: string;
  projectFigures: string;
  projectQueues: string;
  monthFigures: string;
  monthQueues: string;
  counts: string;
  projectCounts: string;
} {
  const day = "(created_at AT TIME ZONE 'UTC')::date";
  const month = "date_trunc('month', created_at AT TIME ZONE 'UTC')::date";
  const runs = `sum(${weight})::int`;
  const retried = `coalesce(sum(${weight}) FILTER (WHERE failures_count > 0), 0)::int`;
  /**
   * The sums of `source` into a pair of tables (figures and queues), keyed by project, `unit` (the column, its value
   * `unitSql`) and, `byAction`, the action: the same two statements for every pair.
   */
  const sumsInto = ({ figures: figuresTable, queues: queuesTable }: FigureTables, unit: 'day' | 'month', unitSql: string, byAction: boolean) => {
    const action = byAction ? ['action'] : [];
    const figureKey = ['project_id', unit, ...action, 'status', 'duration_bucket'].join(', ');
    const queueKey = ['project_id', unit, ...action, 'queue_bucket'].join(', ');
    const keyOf = [project, unitSql, ...action].join(', ');
    const groups = (count: number) => Array.from({ length: count }, (_, i) => i + 1).join(', ');
    return {
      figures: `INSERT INTO ${figuresTable} (${figureKey}, runs, retried)
    SELECT ${keyOf}, status, figure_bucket(total_duration_ms), ${runs}, ${retried}
    FROM ${source} GROUP BY ${groups(action.length + 4)}${
      merge
        ? ` HAVING ${runs} <> 0 OR ${retried} <> 0
    ON CONFLICT (${figureKey})
    DO UPDATE SET runs = ${figuresTable}.runs + EXCLUDED.runs, retried = ${figuresTable}.retried + EXCLUDED.retried`
        : ''
    }`,
      queues: `INSERT INTO ${queuesTable} (${queueKey}, queued)
    SELECT ${keyOf}, figure_bucket(${QUEUE_MS_SQL}), ${runs}
    FROM ${source} WHERE ${QUEUED_SQL} GROUP BY ${groups(action.length + 3)}${
      merge
        ? ` HAVING ${runs} <> 0
    ON CONFLICT (${queueKey}) DO UPDATE SET queued = ${queuesTable}.queued + EXCLUDED.queued`
        : ''
    }`,
    };
  };
  const { figures, queues } = sumsInto(FIGURE_TABLES.actionDay, 'day', day, true);
  // The same sums per project alone (migration operation_day_project_figures): what reads a project as a whole reads.
  const { figures: projectFigures, queues: projectQueues } = sumsInto(FIGURE_TABLES.projectDay, 'day', day, false);
  // And per project and month (migration operation_month_project_figures): what a window's whole months are read from.
  const { figures: monthFigures, queues: monthQueues } = sumsInto(FIGURE_TABLES.projectMonth, 'month', month, false);
  const counts = `INSERT INTO operation_counts (project_id, action, status, operations)
    SELECT ${project}, action, status, ${runs} FROM ${source} GROUP BY 1, 2, 3${
      merge
        ? ` HAVING ${runs} <> 0
    ON CONFLICT (project_id, action, status) DO UPDATE SET operations = operation_counts.operations + EXCLUDED.operations`
        : ''
    }`;
  // Each project's own total (migration operation_project_counts): only an operation added moves it.
  const projectCounts = `INSERT INTO operation_project_counts (project_id, operations)
    SELECT ${project}, ${runs} FROM ${source} GROUP BY 1${
      merge
        ? ` HAVING ${runs} <> 0
    ON CONFLICT (project_id) DO UPDATE SET operations = operation_project_counts.operations + EXCLUDED.operations`
        : ''
    }`;
  return { figures, queues, projectFigures, projectQueues, monthFigures, monthQueues, counts, projectCounts };
}

const REBUILD_WORK_MEM = '256MB';

/**
 * The per-day figures made again from the operations kept, in one transaction under the lock the collector's writes
 * take (inFeedTransaction): what the collector's sums must equal, with no write of it between the two.
 */
export async function rebuildDayFigures(db: Pick<Db, 'transaction'>): Promise<{ figures: number; queues: number }> {
  const { figures, queues, counts } = dayFiguresInserts('operations', 'project_id', '1', false);
  /** `from`'s sums made again into `into`, per project and `unit` (its value from `from`'s day: `unitSql`). */
  const regrouped = (from: FigureTables, into: FigureTables, unit: 'day' | 'month', unitSql: string) => ({
    figures: `INSERT INTO ${into.figures} (project_id, ${unit}, status, duration_bucket, runs, retried)
    SELECT project_id, ${unitSql}, status, duration_bucket, sum(runs), sum(retried) FROM ${from.figures}
    GROUP BY 1, 2, 3, 4 HAVING sum(runs) <> 0 OR sum(retried) <> 0`,
    queues: `INSERT INTO ${into.queues} (project_id, ${unit}, queue_bucket, queued)
    SELECT project_id, ${unitSql}, queue_bucket, sum(queued) FROM ${from.queues} GROUP BY 1, 2, 3 HAVING sum(queued) <> 0`,
  });
  // Per project alone: the sums of the figures just made over their actions (migration operation_day_project_figures's
  // fill), the same sums as from the operations, for a fifth of the rows to group; per month, the sums of those days
  // (migration operation_month_project_figures's fill).
  const projectDays = regrouped(FIGURE_TABLES.actionDay, FIGURE_TABLES.projectDay, 'day', 'day');
  const projectMonths = regrouped(FIGURE_TABLES.projectDay, FIGURE_TABLES.projectMonth, 'month', "date_trunc('month', day::timestamp)::date");
  const projectCounts = `INSERT INTO operation_project_counts (project_id, operations)
    SELECT project_id, sum(operations) FROM operation_counts GROUP BY 1 HAVING sum(operations) <> 0`;
  return inFeedTransaction(db, async (tx) => {
    // Grouping every operation: in memory rather than sorted on disk (the default 4 MB spills at a million).
    await tx.query("SELECT set_config('work_mem', $1, true)", [REBUILD_WORK_MEM]);
    for (const table of [...Object.values(FIGURE_TABLES).flatMap((pair) => [pair.figures, pair.queues]), 'operation_counts', 'operation_project_counts'])
      await tx.query(`DELETE FROM ${table}`);
    for (const statement of [figures, queues, projectDays.figures, projectDays.queues, projectMonths.figures, projectMonths.queues, counts, projectCounts])
      await tx.query(statement);
    const { rows } = await tx.query<{ figures: number; queues: number }>(
      `SELECT (SELECT count(*)::int FROM ${FIGURE_TABLES.actionDay.figures}) AS figures, (SELECT count(*)::int FROM ${FIGURE_TABLES.actionDay.queues}) AS queues`,
    );
    return rows[0] ?? { figures: 0, queues: 0 };
  });
}
