// SQL for notify_webhooks and notify_watches: one place for each, parameters only.
import type { NotificationEventType, WebhookFormat, WebhookScope } from '../../src/api/notification-schemas';
import type { Db, Queryable } from './db';

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
    [hook.id, hook.ownerFingerprint, hook.ownerKeySealed, hook.url, hook.format, hook.scope.kind, scopeId(hook.scope), hook.events, hook.secretSealed, hook.createdAt],
  );
  const row = rows[0];
  if (!row) throw new Error('The webhook was not stored.');
  return row;
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
  return (await db.query<{ id: string }>('DELETE FROM notify_webhooks WHERE id = $1 AND owner_fingerprint = $2 RETURNING id', [id, ownerFingerprint])).rows.length > 0;
}

export async function pauseWebhook(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query('UPDATE notify_webhooks SET paused_reason = $2 WHERE id = $1', [id, reason]);
}

/** Un-pauses, clears the count of failures in a row, and makes what waited due now. */
export async function resumeWebhook(db: Db, id: string, ownerFingerprint: string, now: Date, ownerKeySealed?: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE notify_webhooks SET paused_reason = NULL, consecutive_failures = 0, owner_key_sealed = coalesce($3, owner_key_sealed)
       WHERE id = $1 AND owner_fingerprint = $2 RETURNING id`,
      [id, ownerFingerprint, ownerKeySealed ?? null],
    );
    if (rows.length === 0) return false;
    await tx.query(`UPDATE notify_deliveries SET next_attempt_at = $2 WHERE webhook_id = $1 AND state = 'pending'`, [id, now]);
    return true;
  });
}

/** After an answer: success clears the failures in a row; a failure adds one and pauses at `pauseAfter` (returns whether it paused now). */
export async function recordOutcome(db: Queryable, id: string, delivered: boolean, pauseAfter: number, reason: string): Promise<boolean> {
  if (delivered) {
    await db.query('UPDATE notify_webhooks SET consecutive_failures = 0 WHERE id = $1', [id]);
    return false;
  }
  const { rows } = await db.query<{ paused: boolean }>(
    `UPDATE notify_webhooks SET consecutive_failures = consecutive_failures + 1,
       paused_reason = CASE WHEN paused_reason IS NULL AND consecutive_failures + 1 >= $2 THEN $3 ELSE paused_reason END
     WHERE id = $1 RETURNING (paused_reason = $3 AND consecutive_failures = $2) AS paused`,
    [id, pauseAfter, reason],
  );
  return rows[0]?.paused ?? false;
}

export interface WatchRow {
  owner_fingerprint: string;
  project_id: string;
  operation_id: string;
  created_at: Date;
  ended_at: Date | null;
}

export async function insertWatch(db: Queryable, ownerFingerprint: string, projectId: string, operationId: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO notify_watches (owner_fingerprint, project_id, operation_id, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (owner_fingerprint, operation_id) DO NOTHING`,
    [ownerFingerprint, projectId, operationId, now],
  );
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
  await db.query('UPDATE notify_watches SET ended_at = $3 WHERE owner_fingerprint = $1 AND operation_id = $2 AND ended_at IS NULL', [ownerFingerprint, operationId, now]);
}
