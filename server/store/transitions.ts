// SQL for operation_transitions as the dispatcher reads them (every status change the collector saw, written
// with the operation it changed: server/store/operations.ts, upsertOperations). A transition is claimed until
// it is marked dispatched, never read after a cursor: the collector's transactions may commit out of `seq`
// order, and a cursor past a higher `seq` would skip one that commits later. Claims are FOR UPDATE SKIP
// LOCKED, so they belong in the dispatcher's transaction and two dispatchers take disjoint rows.
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

/** Up to `limit` committed transitions not yet dispatched, oldest first, locked until the transaction `tx` ends. */
export async function claimUndispatched(tx: Queryable, limit: number): Promise<TransitionRow[]> {
  return (
    await tx.query<TransitionRow>(
      `SELECT seq::text AS seq, project_id, operation_id, status, previous_status, seen_at, during_backfill, operation
       FROM operation_transitions WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    )
  ).rows;
}

/** Marks claimed transitions dispatched (in the transaction that queued their deliveries). */
export async function markDispatched(tx: Queryable, seqs: readonly string[], at: Date): Promise<void> {
  await tx.query('UPDATE operation_transitions SET dispatched_at = $2 WHERE seq = ANY($1::bigint[])', [seqs, at]);
}
