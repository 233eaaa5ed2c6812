import type { Db, Queryable } from '../../../server/store/db';

// Notifications' tests run on the archive's store (test/server/store/store-drivers.ts: PGlite and a throwaway
// Postgres server) and write operation_transitions as the collector does.

/** Empties what notifications and the collector's transitions hold, between tests on one store. */
export async function emptyNotifyTables(db: Db): Promise<void> {
  await db.query(
    'TRUNCATE notify_deliveries, notify_watches, notify_webhooks, operation_transitions, operations, operation_day_figures, operation_day_queues, operation_day_project_figures, operation_day_project_queues, operation_month_project_figures, operation_month_project_queues, operation_counts, operation_project_counts RESTART IDENTITY CASCADE',
  );
}

export interface TransitionInput {
  projectId: string;
  operation: { id: string; status: string; action?: string; created_at?: string; total_duration_ms?: number; [key: string]: unknown };
  previousStatus?: string | null;
  seenAt: Date;
  duringBackfill?: boolean;
}

/** What the collector does on every status change it sees: the transition, and the operation's current state. */
export async function recordTransition(db: Queryable, t: TransitionInput): Promise<void> {
  const operation = { action: 'apply_config', created_at: t.seenAt.toISOString(), total_duration_ms: 0, project_id: t.projectId, ...t.operation };
  await db.query(
    'INSERT INTO operation_transitions (project_id, operation_id, status, previous_status, seen_at, during_backfill, operation) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [t.projectId, t.operation.id, t.operation.status, t.previousStatus ?? null, t.seenAt, t.duringBackfill ?? false, JSON.stringify(operation)],
  );
  await db.query(
    `INSERT INTO operations (project_id, id, action, status, created_at, updated_at, body, first_seen_at, last_listed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $6)
     ON CONFLICT (project_id, id) DO UPDATE SET status = excluded.status, body = excluded.body, updated_at = excluded.updated_at`,
    [t.projectId, t.operation.id, operation.action, t.operation.status, operation.created_at, t.seenAt, JSON.stringify(operation)],
  );
}
