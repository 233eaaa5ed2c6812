// SQL for notify_deliveries, the outbox: one row per (webhook, event), inserted ON CONFLICT DO NOTHING so a
// re-read, a restart or a second instance never queues an event twice; claimed one at a time FOR UPDATE SKIP
// LOCKED with a lease, so two instances never send the same attempt (a lease that lapses, its holder gone, is
// taken over).
import { MAX_DELIVERIES_PAGE, type NotificationEventType } from '../../src/api/notification-schemas';
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
  /** Every attempt, for the log. */
  attempts: number;
  /** Attempts of this round (since queued, resumed or redelivered): the step of its retry schedule. */
  round_attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_status: number | null;
  last_answer: string | null;
  last_attempt_at: Date | null;
  /** The project's name when it was last sent (read with the owner's key). */
  project_name: string | null;
  /** The exact body last sent. */
  last_body: string | null;
  last_duration_ms: number | null;
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

const DUE = `d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1) AND w.paused_reason IS NULL`;

/** Webhooks (not paused) with deliveries due and not leased, and how many: the oldest due first. */
export async function dueWebhooks(db: Queryable, now: Date, limit: number): Promise<Array<{ webhook_id: string; due: number }>> {
  return (
    await db.query<{ webhook_id: string; due: number }>(
      `SELECT d.webhook_id, count(*)::int AS due FROM notify_deliveries d JOIN notify_webhooks w ON w.id = d.webhook_id
       WHERE ${DUE} GROUP BY d.webhook_id ORDER BY min(d.next_attempt_at) LIMIT $2`,
      [now, limit],
    )
  ).rows;
}

/** Leases one due delivery of a webhook that is not paused until `leaseUntil`, the oldest due first; undefined when none is. */
export async function claimNext(db: Queryable, webhookId: string, now: Date, leaseUntil: Date): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE notify_deliveries SET lease_until = $3
     WHERE id = (
       SELECT d.id FROM notify_deliveries d JOIN notify_webhooks w ON w.id = d.webhook_id
       WHERE d.webhook_id = $2 AND ${DUE}
       ORDER BY d.next_attempt_at, d.id
       LIMIT 1
       FOR UPDATE OF d SKIP LOCKED
     )
     RETURNING *`,
    [now, webhookId, leaseUntil],
  );
  return rows[0];
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
  /** What was sent, for the log: the project's name, the body, how long the receiver took. */
  sent?: { projectName: string; body: string; durationMs: number };
}

/** Records an attempt's outcome and releases the lease. */
export async function recordAttempt(db: Queryable, r: AttemptRecord): Promise<void> {
  await db.query(
    `UPDATE notify_deliveries SET state = $2, attempts = attempts + $3::int, round_attempts = round_attempts + $3::int,
       last_status = CASE WHEN $3::int = 1 THEN $4 ELSE last_status END,
       last_answer = coalesce($5, last_answer), last_attempt_at = CASE WHEN $3::int = 1 THEN $6 ELSE last_attempt_at END,
       next_attempt_at = coalesce($7, next_attempt_at), lease_until = NULL, visible = visible OR $8,
       project_name = coalesce($9, project_name), last_body = coalesce($10, last_body), last_duration_ms = CASE WHEN $3::int = 1 THEN $11 ELSE last_duration_ms END
     WHERE id = $1`,
    [
      r.id,
      r.state,
      r.attempted ? 1 : 0,
      r.status,
      r.answer,
      r.at,
      r.nextAttemptAt,
      r.visible,
      r.sent?.projectName ?? null,
      r.sent?.body ?? null,
      r.sent?.durationMs ?? null,
    ],
  );
}

/** Gives a leased delivery back untouched (its webhook was paused meanwhile). */
export async function releaseDelivery(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE notify_deliveries SET lease_until = NULL WHERE id = $1', [id]);
}

/** The delivery log the page shows: newest first, only rows about projects the owner's key was seen to read. */
/**
 * One page of a webhook's delivery log, newest first: at most `limit` rows older than the row `before` names (the
 * cursor: its id as text, as both drivers read it; none: from the newest). `next` is the cursor of the page after
 * it, null on the last.
 */
export async function deliveryLog(
  db: Queryable,
  webhookId: string,
  { limit = MAX_DELIVERIES_PAGE, before }: { limit?: number; before?: string | undefined } = {},
): Promise<{ rows: DeliveryRow[]; next: string | null }> {
  const { rows } = await db.query<DeliveryRow & { cursor: string }>(
    `SELECT *, id::text AS cursor FROM notify_deliveries
     WHERE webhook_id = $1 AND visible AND state <> 'withheld' AND ($3::bigint IS NULL OR id < $3::bigint)
     ORDER BY id DESC LIMIT $2`,
    [webhookId, limit + 1, before ?? null],
  );
  const page = rows.slice(0, limit);
  return { rows: page, next: rows.length > limit ? (page.at(-1)?.cursor ?? null) : null };
}

export interface OutboxBacklog {
  /** Deliveries waiting to be sent, or sent again. */
  pending: number;
  /** When the oldest of them was queued (null: none waits). */
  oldestQueuedAt: Date | null;
}

/** How much waits in the outbox, and since when (readiness and metrics; the partial index on pending rows serves it). */
export async function outboxBacklog(db: Queryable): Promise<OutboxBacklog> {
  const { rows } = await db.query<{ pending: number; oldest: Date | null }>(
    "SELECT count(*)::int AS pending, min(created_at) AS oldest FROM notify_deliveries WHERE state = 'pending'",
  );
  return { pending: rows[0]?.pending ?? 0, oldestQueuedAt: rows[0]?.oldest ?? null };
}

/**
 * The receiver answered again after failing: its events waiting for a later step of their schedule are due
 * now (they drain within the per-webhook limit) rather than minutes or hours after it came back.
 */
export async function bringForward(db: Queryable, webhookId: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE notify_deliveries SET next_attempt_at = $2 WHERE webhook_id = $1 AND state = 'pending' AND round_attempts > 0 AND next_attempt_at > $2`,
    [webhookId, now],
  );
}

/**
 * Resume: what waited is due now, and what failed (a 4xx, a schedule run out) since `since` is queued again;
 * each starts a new round of its schedule. Rows being sent (leased) keep their course.
 */
export async function resendUndelivered(db: Queryable, webhookId: string, now: Date, since: Date): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE notify_deliveries SET state = 'pending', next_attempt_at = $2, round_attempts = 0
     WHERE webhook_id = $1 AND (lease_until IS NULL OR lease_until <= $2)
       AND (state = 'pending' OR (state = 'failed' AND visible AND created_at >= $3))
     RETURNING id`,
    [webhookId, now, since],
  );
  return rows.length;
}

export type Redelivery = 'queued' | 'not-found' | 'too-old' | 'in-flight';

/** "Redeliver": one event of the log, of the last window (`since`), sent again now in a new round, whatever its state. */
export async function redeliver(db: Queryable, webhookId: string, eventId: string, now: Date, since: Date): Promise<Redelivery> {
  const { rows } = await db.query<{ created_at: Date; lease_until: Date | null; queued: boolean }>(
    `WITH target AS (
       SELECT id, created_at, lease_until FROM notify_deliveries
       WHERE webhook_id = $1 AND event_id = $2 AND visible AND state <> 'withheld' FOR UPDATE
     ), queued AS (
       UPDATE notify_deliveries d SET state = 'pending', next_attempt_at = $3, round_attempts = 0
       FROM target WHERE d.id = target.id AND target.created_at >= $4 AND (target.lease_until IS NULL OR target.lease_until <= $3)
       RETURNING d.id
     )
     SELECT target.created_at, target.lease_until, EXISTS (SELECT 1 FROM queued) AS queued FROM target`,
    [webhookId, eventId, now, since],
  );
  const row = rows[0];
  if (!row) return 'not-found';
  if (row.queued) return 'queued';
  return row.created_at < since ? 'too-old' : 'in-flight';
}
