// The per-day figures (docs/insights.md, "Per-day figures"; migration operation_day_figures): runs, retried and
// durations per project, UTC day of creation, action, status and duration bucket, and the queue per bucket (and per
// project alone, by day and by month: migrations operation_day_project_figures, operation_month_project_figures), kept by
// upsertOperations (server/store/operations.ts) in the statement that records an operation and made again from the
// operations by rebuildDayFigures (`npm run store:rebuild-figures`). Both write them with the statements below, so
// what the collector keeps and what a rebuild makes are the same sums. The buckets are the migration's SQL functions
// figure_bucket (2 % wide on a log scale) and figure_bucket_ms (a bucket's geometric middle: within 1 % of its values).
import type { Db } from './db';
import { inFeedTransaction } from './live-changes';

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
  const sumsInto = (figuresTable: string, queuesTable: string, unit: 'day' | 'month', unitSql: string, byAction: boolean) => {
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
  const { figures, queues } = sumsInto('operation_day_figures', 'operation_day_queues', 'day', day, true);
  // The same sums per project alone (migration operation_day_project_figures): what reads a project as a whole reads.
  const { figures: projectFigures, queues: projectQueues } = sumsInto('operation_day_project_figures', 'operation_day_project_queues', 'day', day, false);
  // And per project and month (migration operation_month_project_figures): what a window's whole months are read from.
  const { figures: monthFigures, queues: monthQueues } = sumsInto('operation_month_project_figures', 'operation_month_project_queues', 'month', month, false);
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
  // Per project alone: the sums of the figures just made over their actions (migration operation_day_project_figures's
  // fill), the same sums as from the operations, for a fifth of the rows to group.
  const projectFigures = `INSERT INTO operation_day_project_figures (project_id, day, status, duration_bucket, runs, retried)
    SELECT project_id, day, status, duration_bucket, sum(runs), sum(retried) FROM operation_day_figures
    GROUP BY 1, 2, 3, 4 HAVING sum(runs) <> 0 OR sum(retried) <> 0`;
  const projectQueues = `INSERT INTO operation_day_project_queues (project_id, day, queue_bucket, queued)
    SELECT project_id, day, queue_bucket, sum(queued) FROM operation_day_queues GROUP BY 1, 2, 3 HAVING sum(queued) <> 0`;
  // Per project and month: the sums of the per-project days just made (migration operation_month_project_figures's fill).
  const monthFigures = `INSERT INTO operation_month_project_figures (project_id, month, status, duration_bucket, runs, retried)
    SELECT project_id, date_trunc('month', day::timestamp)::date, status, duration_bucket, sum(runs), sum(retried)
    FROM operation_day_project_figures GROUP BY 1, 2, 3, 4 HAVING sum(runs) <> 0 OR sum(retried) <> 0`;
  const monthQueues = `INSERT INTO operation_month_project_queues (project_id, month, queue_bucket, queued)
    SELECT project_id, date_trunc('month', day::timestamp)::date, queue_bucket, sum(queued) FROM operation_day_project_queues
    GROUP BY 1, 2, 3 HAVING sum(queued) <> 0`;
  const projectCounts = `INSERT INTO operation_project_counts (project_id, operations)
    SELECT project_id, sum(operations) FROM operation_counts GROUP BY 1 HAVING sum(operations) <> 0`;
  return inFeedTransaction(db, async (tx) => {
    // Grouping every operation: in memory rather than sorted on disk (the default 4 MB spills at a million).
    await tx.query("SELECT set_config('work_mem', $1, true)", [REBUILD_WORK_MEM]);
    await tx.query('DELETE FROM operation_day_figures');
    await tx.query('DELETE FROM operation_day_queues');
    await tx.query('DELETE FROM operation_day_project_figures');
    await tx.query('DELETE FROM operation_day_project_queues');
    await tx.query('DELETE FROM operation_month_project_figures');
    await tx.query('DELETE FROM operation_month_project_queues');
    await tx.query('DELETE FROM operation_counts');
    await tx.query('DELETE FROM operation_project_counts');
    await tx.query(figures);
    await tx.query(queues);
    await tx.query(projectFigures);
    await tx.query(projectQueues);
    await tx.query(monthFigures);
    await tx.query(monthQueues);
    await tx.query(counts);
    await tx.query(projectCounts);
    const { rows } = await tx.query<{ figures: number; queues: number }>(
      'SELECT (SELECT count(*)::int FROM operation_day_figures) AS figures, (SELECT count(*)::int FROM operation_day_queues) AS queues',
    );
    return rows[0] ?? { figures: 0, queues: 0 };
  });
}
