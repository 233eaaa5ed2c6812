// SQL for notify_deliveries, the outbox: one row per (webhook, event), inserted ON CONFLICT DO NOTHING so a
// re-read, a restart or a second instance never queues an event twice; claimed FOR UPDATE SKIP LOCKED with
// a lease, so two instances never send the same attempt (a lease that lapses, its holder gone, is taken over).
import type { NotificationEventType } from '../../src/api/notification-schemas';
import type { Queryable } from './db';

/** The operation as the API described it when the event was raised (kept whole: receivers get the API's object). */
export type OperationObject = Record<string, unknown> & { id: string; project_id?: string; action?: string; status?: string };

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'withheld';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  type: NotificationEventType;
  project_id: string;
  operation_id: string;
  occurred_at: Date;
  operation: OperationObject;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_status: number | null;
  last_answer: string | null;
  last_attempt_at: Date | null;
  visible: boolean;
  created_at: Date;
}

export interface NewDelivery {
  webhookId: string;
  eventId: string;
  type: NotificationEventType;
  projectId: string;
  operationId: string;
  occurredAt: Date;
  operation: OperationObject;
  now: Date;
}

/** Queues an event for a webhook; false when it was queued before (by anyone). */
export async function enqueueDelivery(db: Queryable, d: NewDelivery): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO notify_deliveries (webhook_id, event_id, type, project_id, operation_id, occurred_at, operation, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
     ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`,
    [d.webhookId, d.eventId, d.type, d.projectId, d.operationId, d.occurredAt, JSON.stringify(d.operation), d.now],
  );
  return rows.length > 0;
}

/**
 * Takes up to `limit` due deliveries of webhooks that are not paused and not in `busyWebhooks` (one
 * delivery per webhook at a time in this process: a slow receiver holds up only its own events), oldest
 * first, and leases them until `leaseUntil`.
 */
export async function claimDue(db: Queryable, now: Date, leaseUntil: Date, limit: number, busyWebhooks: readonly string[]): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE notify_deliveries SET lease_until = $2
     WHERE id IN (
       SELECT d.id FROM notify_deliveries d JOIN notify_webhooks w ON w.id = d.webhook_id
       WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
         AND w.paused_reason IS NULL AND NOT (d.webhook_id = ANY($4))
       ORDER BY d.next_attempt_at, d.id
       LIMIT $3
       FOR UPDATE OF d SKIP LOCKED
     )
     RETURNING *`,
    [now, leaseUntil, limit * 4, busyWebhooks],
  );
  // One per webhook: the rest stay leased only until this tick's answer, so release them now.
  const taken = new Map<string, DeliveryRow>();
  const extra: string[] = [];
  for (const row of rows.sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || Number(a.id) - Number(b.id))) {
    if (taken.has(row.webhook_id) || taken.size >= limit) extra.push(row.id);
    else taken.set(row.webhook_id, row);
  }
  if (extra.length > 0) await db.query('UPDATE notify_deliveries SET lease_until = NULL WHERE id = ANY($1)', [extra]);
  return [...taken.values()];
}

export interface AttemptRecord {
  id: string;
  state: DeliveryState;
  /** Whether this counted as an attempt (a check that could not be made is not one). */
  attempted: boolean;
  status: number | null;
  answer: string | null;
  at: Date;
  nextAttemptAt: Date | null;
  visible: boolean;
}

/** Records an attempt's outcome and releases the lease. */
export async function recordAttempt(db: Queryable, r: AttemptRecord): Promise<void> {
  await db.query(
    `UPDATE notify_deliveries SET state = $2, attempts = attempts + $3::int, last_status = CASE WHEN $3::int = 1 THEN $4 ELSE last_status END,
       last_answer = coalesce($5, last_answer), last_attempt_at = CASE WHEN $3::int = 1 THEN $6 ELSE last_attempt_at END,
       next_attempt_at = coalesce($7, next_attempt_at), lease_until = NULL, visible = visible OR $8
     WHERE id = $1`,
    [r.id, r.state, r.attempted ? 1 : 0, r.status, r.answer, r.at, r.nextAttemptAt, r.visible],
  );
}

/** Gives a leased delivery back untouched (its webhook was paused meanwhile). */
export async function releaseDelivery(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE notify_deliveries SET lease_until = NULL WHERE id = $1', [id]);
}

/** The delivery log the page shows: newest first, only rows about projects the owner's key was seen to read. */
export async function deliveryLog(db: Queryable, webhookId: string, limit = 100): Promise<DeliveryRow[]> {
  return (await db.query<DeliveryRow>(`SELECT * FROM notify_deliveries WHERE webhook_id = $1 AND visible AND state <> 'withheld' ORDER BY id DESC LIMIT $2`, [webhookId, limit])).rows;
}

export interface OutboxBacklog {
  /** Deliveries waiting to be sent, or sent again. */
  pending: number;
  /** When the oldest of them was queued (null: none waits). */
  oldestQueuedAt: Date | null;
}

/** How much waits in the outbox, and since when (readiness and metrics; the partial index on pending rows serves it). */
export async function outboxBacklog(db: Queryable): Promise<OutboxBacklog> {
  const { rows } = await db.query<{ pending: number; oldest: Date | null }>("SELECT count(*)::int AS pending, min(created_at) AS oldest FROM notify_deliveries WHERE state = 'pending'");
  return { pending: rows[0]?.pending ?? 0, oldestQueuedAt: rows[0]?.oldest ?? null };
}
