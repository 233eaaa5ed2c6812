import { readFile } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db } from '../../../server/notify/notify-db';

// Until the archive's store (server/store/db.ts) lands: an in-memory PGlite in the store's Db shape, with
// the collector's operation_transitions as its contract states it and the notifications' migration applied.

const TRANSITIONS = `CREATE TABLE IF NOT EXISTS operation_transitions (
  seq bigserial PRIMARY KEY, project_id text NOT NULL, operation_id text NOT NULL, status text NOT NULL,
  previous_status text NULL, seen_at timestamptz NOT NULL, during_backfill boolean NOT NULL DEFAULT false, operation jsonb NOT NULL)`;

function wrap(target: PGlite | Transaction): Db {
  const db: Db = {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the store's contract
    query: async <R>(text: string, params?: unknown[]) => ({ rows: (await target.query<R>(text, params)).rows }),
    transaction: (fn) => ('transaction' in target ? target.transaction((tx) => fn(wrap(tx))) : fn(db)),
    close: async () => {
      if ('close' in target) await target.close();
    },
  };
  return db;
}

export async function createNotifyTestDb(): Promise<Db> {
  const pg = new PGlite();
  await pg.exec(TRANSITIONS);
  await pg.exec(await readFile(new URL('../../../server/store/migrations/050_notifications.sql', import.meta.url), 'utf8'));
  return wrap(pg);
}

/** Empties every table the notifications and the collector's contract use (one database per test file: initdb is slow). */
export async function emptyNotifyTestDb(db: Db): Promise<void> {
  await db.query('TRUNCATE notify_deliveries, notify_watches, notify_webhooks, notify_cursor, operation_transitions RESTART IDENTITY CASCADE');
}

export interface TransitionInput {
  projectId: string;
  operation: { id: string; status: string; action?: string; created_at?: string; total_duration_ms?: number; [key: string]: unknown };
  previousStatus?: string | null;
  seenAt: Date;
  duringBackfill?: boolean;
}

/** What the collector does on every status change it sees. */
export async function recordTransition(db: Db, t: TransitionInput): Promise<void> {
  const operation = { action: 'apply_config', created_at: t.seenAt.toISOString(), total_duration_ms: 0, project_id: t.projectId, ...t.operation };
  await db.query(
    'INSERT INTO operation_transitions (project_id, operation_id, status, previous_status, seen_at, during_backfill, operation) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [t.projectId, t.operation.id, t.operation.status, t.previousStatus ?? null, t.seenAt, t.duringBackfill ?? false, JSON.stringify(operation)],
  );
}
