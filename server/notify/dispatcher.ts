// Turns what the collector recorded into queued deliveries. Claims the transitions not yet dispatched
// (FOR UPDATE SKIP LOCKED, never a cursor: a transition whose transaction commits after a higher `seq` is
// claimed once it commits), in one transaction with the inserts and the marks, so a crash claims them again
// and the outbox's unique (webhook, event) drops what was queued before. Transitions seen during
// a backfill, or before a webhook existed, raise nothing. "Longer than usual" is not a transition: a
// second pass looks at operations still in flight against the history's rule (src/model/usual-durations.ts).
// The rules live here (which event a status raises, who gets it); the SQL in server/store/.
import type { NotificationEventType } from '../../src/api/notification-schemas';
import { isTerminal, statusTone } from '../../src/model/operation-status';
import { longerThanUsual, usualDurations } from '../../src/model/usual-durations';
import { enqueueDelivery } from '../store/deliveries';
import type { Db } from '../store/db';
import type { OperationObject } from './payload';
import { inFlightOperations, newestOperations, type InFlightOperation } from '../store/operations';
import { claimUndispatched, markDispatched } from '../store/transitions';
import { allWebhooks, endWatch, openWatchesOn, type WebhookRow } from '../store/webhooks';

/** Transitions claimed per transaction: a pass that claims fewer has caught up. */
export const DISPATCH_BATCH = 500;

/** The event a status change raises, if any. */
export function eventTypeOf(status: string): NotificationEventType | null {
  // The status model's outcome, as every screen shows it: an Error (failed, retried or not; error), or OK.
  const tone = statusTone(status);
  if (tone === 'danger') return 'operation.failed';
  if (tone === 'success') return 'operation.finished';
  return null;
}

/** Stable per operation and transition: the same change read again gives the same id; a second failure after a retry gives another. */
export function eventIdOf(type: NotificationEventType, operation: OperationObject, status: string): string {
  if (type === 'operation.longer_than_usual') return `${operation.id}:longer_than_usual`;
  const failures = typeof operation.failures_count === 'number' && operation.failures_count > 0 ? `:${operation.failures_count}` : '';
  return `${operation.id}:${status}${status === 'failed' ? failures : ''}`;
}

/** Whether a webhook's rule covers a project here (an organization's scope is checked at delivery, with the project's read). */
function scopeMayCover(hook: WebhookRow, projectId: string): boolean {
  return hook.scope_kind !== 'project' || hook.scope_id === projectId;
}

export interface DispatchResult {
  transitions: number;
  queued: number;
}

/** One pass over transitions not yet dispatched; call while it claims DISPATCH_BATCH to catch up. */
export async function dispatchTransitions(db: Db, now: Date): Promise<DispatchResult> {
  return db.transaction(async (tx) => {
    const rows = await claimUndispatched(tx, DISPATCH_BATCH);
    if (rows.length === 0) return { transitions: 0, queued: 0 };
    const hooks = await allWebhooks(tx);
    const live = rows.filter((row) => !row.during_backfill && row.status !== row.previous_status);
    const watches = await openWatchesOn(tx, [...new Set(live.map((row) => row.operation_id))]);
    let queued = 0;
    for (const row of live) {
      const type = eventTypeOf(row.status);
      if (!type) continue;
      const eventId = eventIdOf(type, row.operation, row.status);
      const base = { eventId, type, projectId: row.project_id, operationId: row.operation_id, occurredAt: row.seen_at, operation: row.operation, now };
      const targets = new Set<string>();
      for (const hook of hooks) {
        if (hook.events.includes(type) && hook.created_at <= row.seen_at && scopeMayCover(hook, row.project_id)) targets.add(hook.id);
      }
      // "Notify me when it ends": every webhook of the person who asked, whatever their events.
      for (const watch of watches.filter((w) => w.operation_id === row.operation_id && w.project_id === row.project_id && w.created_at <= row.seen_at)) {
        for (const hook of hooks) if (hook.owner_fingerprint === watch.owner_fingerprint) targets.add(hook.id);
        if (isTerminal(row.status)) await endWatch(tx, watch.owner_fingerprint, watch.operation_id, now);
      }
      for (const webhookId of targets) if (await enqueueDelivery(tx, { ...base, webhookId })) queued += 1;
    }
    await markDispatched(
      tx,
      rows.map((row) => row.seq),
      now,
    );
    return { transitions: rows.length, queued };
  });
}

/** The operations a project's usual durations are read from: its newest, like the history's first pages. */
const USUAL_SAMPLE = 1_000;

/**
 * Queues "longer than usual" for operations in flight (the status rules' isInFlight, in the store's SQL) past
 * the history's rule, in the projects a webhook with that event may cover. Reads the archive's operations
 * table, only the few fields the rule needs. Each operation raises it once (its event id is the operation's).
 */
export async function dispatchLongerThanUsual(db: Db, now: Date): Promise<number> {
  const hooks = (await allWebhooks(db)).filter((hook) => hook.events.includes('operation.longer_than_usual'));
  if (hooks.length === 0) return 0;
  const projectFilter = hooks.some((hook) => hook.scope_kind !== 'project') ? null : [...new Set(hooks.map((hook) => hook.scope_id ?? ''))];
  const busy = await inFlightOperations(db, now, projectFilter);
  const byProject = new Map<string, InFlightOperation[]>();
  for (const row of busy) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
  let queued = 0;
  for (const [projectId, list] of byProject) {
    const usual = usualDurations(await newestOperations(db, projectId, USUAL_SAMPLE));
    for (const row of list) {
      if (!longerThanUsual(row.operation, usual, now.getTime())) continue;
      const eventId = eventIdOf('operation.longer_than_usual', row.operation, row.operation.status);
      for (const hook of hooks) {
        if (!scopeMayCover(hook, projectId)) continue;
        const base = {
          eventId,
          type: 'operation.longer_than_usual' as const,
          projectId,
          operationId: row.operation.id,
          occurredAt: now,
          operation: row.operation,
          now,
        };
        if (await enqueueDelivery(db, { ...base, webhookId: hook.id })) queued += 1;
      }
    }
  }
  return queued;
}
