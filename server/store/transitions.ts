// SQL for operation_transitions (every status change the collector saw, written with the operation it
// changed: server/store/operations.ts, upsertOperations) as read after a cursor, and for notify_cursor,
// each reader's place in them. The cursor is read FOR UPDATE, so it belongs in the reader's transaction.
import type { OperationObject } from './deliveries';
import type { Queryable } from './db';

export interface TransitionRow {
  seq: string;
  project_id: string;
  operation_id: string;
  status: string;
  previous_status: string | null;
  seen_at: Date;
  during_backfill: boolean;
  /** The operation as the API described it when the change was seen. */
  operation: OperationObject;
}

/** The status changes after `seq` (a cursor), oldest first. */
export async function transitionsAfter(db: Queryable, seq: string | number, limit = 1_000): Promise<TransitionRow[]> {
  return (
    await db.query<TransitionRow>('SELECT seq::text AS seq, project_id, operation_id, status, previous_status, seen_at, during_backfill, operation FROM operation_transitions WHERE seq > $1 ORDER BY seq LIMIT $2', [
      String(seq),
      limit,
    ])
  ).rows;
}

/**
 * The cursor `name`'s place, locked until the transaction `tx` ends. A cursor read for the first time starts
 * at the end: what happened before its reader existed is not its to read.
 */
export async function lockCursor(tx: Queryable, name: string): Promise<number> {
  await tx.query(`INSERT INTO notify_cursor (name, seq) SELECT $1, coalesce(max(seq), 0) FROM operation_transitions ON CONFLICT (name) DO NOTHING`, [name]);
  const { rows } = await tx.query<{ seq: string | number }>('SELECT seq FROM notify_cursor WHERE name = $1 FOR UPDATE', [name]);
  return Number(rows[0]?.seq ?? 0);
}

/** Moves the cursor `name` on to `seq`, never back. */
export async function advanceCursor(tx: Queryable, name: string, seq: number): Promise<void> {
  await tx.query('UPDATE notify_cursor SET seq = greatest(seq, $2) WHERE name = $1', [name, seq]);
}
