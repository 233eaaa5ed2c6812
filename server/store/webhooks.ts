// SQL for notify_webhooks and notify_watches: one place for each, parameters only.
import type { NotificationEventType, WebhookFormat, WebhookScope } from '../../src/api/notification-schemas';
import type { Db, Queryable } from './db';
import { resendUndelivered } from './deliveries';

export interface WebhookRow {
  id: string;
  owner_fingerprint: string;
  owner_key_sealed: string;
  url: string;
  format: WebhookFormat;
  scope_kind: WebhookScope['kind'];
  scope_id: string | null;
  events: NotificationEventType[];
  secret_sealed: string;
  paused_reason: string | null;
  consecutive_failures: number;
  /** The first failure after the last success; null while the last answer was a success (or none came yet). */
  failing_since: Date | null;
  last_success_at: Date | null;
  created_at: Date;
}

export interface NewWebhook {
  id: string;
  ownerFingerprint: string;
  ownerKeySealed: string;
  url: string;
  format: WebhookFormat;
  scope: WebhookScope;
  events: readonly NotificationEventType[];
  secretSealed: string;
  createdAt: Date;
}

export function scopeOf(row: Pick<WebhookRow, 'scope_kind' | 'scope_id'>): WebhookScope {
  if (row.scope_kind === 'organization' && row.scope_id) return { kind: 'organization', orgId: row.scope_id };
  if (row.scope_kind === 'project' && row.scope_id) return { kind: 'project', projectId: row.scope_id };
  return { kind: 'all' };
}

function scopeId(scope: WebhookScope): string | null {
  return scope.kind === 'organization' ? scope.orgId : scope.kind === 'project' ? scope.projectId : null;
}

export async function insertWebhook(db: Queryable, hook: NewWebhook): Promise<WebhookRow> {
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO notify_webhooks (id, owner_fingerprint, owner_key_sealed, url, format, scope_kind, scope_id, events, secret_sealed, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [
      hook.id,
      hook.ownerFingerprint,
      hook.ownerKeySealed,
      hook.url,
      hook.format,
      hook.scope.kind,
      scopeId(hook.scope),
      hook.events,
      hook.secretSealed,
      hook.createdAt,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error('The webhook was not stored.');
  return row;
}

/** The advisory lock (with the owner's hash) a new webhook is counted under: two added at once cannot pass the limit together. */
export const WEBHOOK_COUNT_LOCK = 4_022_003;

/** Keeps a webhook unless its owner has `max` already; undefined when refused for that. */
export async function insertWebhookWithin(db: Db, hook: NewWebhook, max: number): Promise<WebhookRow | undefined> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))', [WEBHOOK_COUNT_LOCK, hook.ownerFingerprint]);
    const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM notify_webhooks WHERE owner_fingerprint = $1', [hook.ownerFingerprint]);
    return (rows[0]?.n ?? 0) >= max ? undefined : insertWebhook(tx, hook);
  });
}

export async function listWebhooks(db: Queryable, ownerFingerprint: string): Promise<WebhookRow[]> {
  return (await db.query<WebhookRow>('SELECT * FROM notify_webhooks WHERE owner_fingerprint = $1 ORDER BY created_at, id', [ownerFingerprint])).rows;
}

/** Every webhook, for the dispatcher's matching (a handful per deployment). */
export async function allWebhooks(db: Queryable): Promise<WebhookRow[]> {
  return (await db.query<WebhookRow>('SELECT * FROM notify_webhooks ORDER BY id')).rows;
}

export async function getWebhook(db: Queryable, id: string): Promise<WebhookRow | undefined> {
  return (await db.query<WebhookRow>('SELECT * FROM notify_webhooks WHERE id = $1', [id])).rows[0];
}

/** Deletes a webhook its owner asks to delete (with its deliveries); false when there is none of theirs. */
export async function deleteWebhook(db: Queryable, id: string, ownerFingerprint: string): Promise<boolean> {
  return (
    (await db.query<{ id: string }>('DELETE FROM notify_webhooks WHERE id = $1 AND owner_fingerprint = $2 RETURNING id', [id, ownerFingerprint])).rows.length >
    0
  );
}

export async function pauseWebhook(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query('UPDATE notify_webhooks SET paused_reason = $2 WHERE id = $1', [id, reason]);
}

/**
 * Un-pauses and clears the failures; what waited is due now and what failed since `resendSince` (a 4xx, a
 * schedule run out) is queued again, each in a new round of its schedule.
 */
export async function resumeWebhook(db: Db, id: string, ownerFingerprint: string, now: Date, resendSince: Date, ownerKeySealed?: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE notify_webhooks SET paused_reason = NULL, consecutive_failures = 0, failing_since = NULL, owner_key_sealed = coalesce($3, owner_key_sealed)
       WHERE id = $1 AND owner_fingerprint = $2 RETURNING id`,
      [id, ownerFingerprint, ownerKeySealed ?? null],
    );
    if (rows.length === 0) return false;
    await resendUndelivered(tx, id, now, resendSince);
    return true;
  });
}

export type Outcome = { recovered: boolean; paused: boolean };

/**
 * After an answer. A success clears the failures and says whether the webhook was failing until now
 * (`recovered`). A failure counts one more and starts `failing_since` if it is the first since a success; the
 * webhook is paused with `reason` once that start lies at or before `pauseIfFailingSince`. `paused`: paused now.
 */
export async function recordOutcome(db: Queryable, id: string, delivered: boolean, at: Date, pauseIfFailingSince: Date, reason: string): Promise<Outcome> {
  if (delivered) {
    const { rows } = await db.query<{ recovered: boolean }>(
      `WITH old AS (SELECT failing_since FROM notify_webhooks WHERE id = $1 FOR UPDATE)
       UPDATE notify_webhooks w SET consecutive_failures = 0, failing_since = NULL, last_success_at = $2
       FROM old WHERE w.id = $1 RETURNING old.failing_since IS NOT NULL AS recovered`,
      [id, at],
    );
    return { recovered: rows[0]?.recovered ?? false, paused: false };
  }
  const { rows } = await db.query<{ paused: boolean }>(
    `WITH old AS (SELECT paused_reason FROM notify_webhooks WHERE id = $1 FOR UPDATE)
     UPDATE notify_webhooks w SET consecutive_failures = w.consecutive_failures + 1, failing_since = coalesce(w.failing_since, $2),
       paused_reason = CASE WHEN w.paused_reason IS NULL AND w.failing_since <= $3 THEN $4 ELSE w.paused_reason END
     FROM old WHERE w.id = $1 RETURNING (old.paused_reason IS NULL AND w.paused_reason IS NOT NULL) AS paused`,
    [id, at, pauseIfFailingSince, reason],
  );
  return { recovered: false, paused: rows[0]?.paused ?? false };
}

export interface WatchRow {
  owner_fingerprint: string;
  project_id: string;
  operation_id: string;
  created_at: Date;
  ended_at: Date | null;
}

export interface NewWatch {
  ownerFingerprint: string;
  projectId: string;
  operationId: string;
  now: Date;
  /** Open watches the owner may have… */
  maxOpen: number;
  /** …counting those made since this (an operation that never ended does not hold a place for ever). */
  countSince: Date;
}

/** Keeps a watch unless its owner has `maxOpen` open already (a watch of the same operation stays as it is); false when refused for that. */
export async function insertWatch(db: Queryable, w: NewWatch): Promise<boolean> {
  const { rows } = await db.query<{ kept: boolean }>(
    `WITH open AS (SELECT count(*) AS n FROM notify_watches WHERE owner_fingerprint = $1 AND ended_at IS NULL AND created_at >= $6),
     existing AS (SELECT 1 FROM notify_watches WHERE owner_fingerprint = $1 AND operation_id = $3),
     added AS (
       INSERT INTO notify_watches (owner_fingerprint, project_id, operation_id, created_at)
       SELECT $1, $2, $3, $4 FROM open WHERE open.n < $5
       ON CONFLICT (owner_fingerprint, operation_id) DO NOTHING RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM added) OR EXISTS (SELECT 1 FROM existing) AS kept`,
    [w.ownerFingerprint, w.projectId, w.operationId, w.now, w.maxOpen, w.countSince],
  );
  return rows[0]?.kept ?? false;
}

export async function listWatches(db: Queryable, ownerFingerprint: string): Promise<WatchRow[]> {
  return (await db.query<WatchRow>('SELECT * FROM notify_watches WHERE owner_fingerprint = $1 ORDER BY created_at DESC LIMIT 200', [ownerFingerprint])).rows;
}

/** Watches not yet ended on any of `operationIds`. */
export async function openWatchesOn(db: Queryable, operationIds: readonly string[]): Promise<WatchRow[]> {
  if (operationIds.length === 0) return [];
  return (await db.query<WatchRow>('SELECT * FROM notify_watches WHERE ended_at IS NULL AND operation_id = ANY($1)', [operationIds])).rows;
}

export async function endWatch(db: Queryable, ownerFingerprint: string, operationId: string, now: Date): Promise<void> {
  await db.query('UPDATE notify_watches SET ended_at = $3 WHERE owner_fingerprint = $1 AND operation_id = $2 AND ended_at IS NULL', [
    ownerFingerprint,
    operationId,
    now,
  ]);
}
