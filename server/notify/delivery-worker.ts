// Sends what the outbox holds. Each tick claims due deliveries, at most one per webhook at a
// time in this process, and sends them without waiting for each other: a slow receiver holds up only its
// own events, never the collector (a separate loop) nor other webhooks. Every attempt is recorded on its
// row; the webhook's failures in a row pause it at PAUSE_AFTER_FAILURES.
import type { Log } from '../log/logger';
import { createOutage, type Outage } from '../log/outage';
import { nextAttemptAt, PAUSE_AFTER_FAILURES, retryAfterMs, verdictOf } from './backoff';
import { claimDue, recordAttempt, releaseDelivery, type DeliveryRow } from '../store/deliveries';
import type { Db } from '../store/db';
import { renderBody, type NotificationEvent } from './payload';
import type { ProjectAccess } from '../proxy/project-access';
import type { Seal } from '../session/seal';
import type { SendWebhook } from './send-webhook';
import { EVENT_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature';
import type { Resolve } from './url-guard';
import { checkWebhookUrl } from './url-guard';
import { getWebhook, pauseWebhook, recordOutcome, scopeOf, type WebhookRow } from '../store/webhooks';

/** A claimed delivery is another instance's to take over once this long has passed without an answer recorded. */
export const LEASE_MS = 60_000;
/** A project read the API did not answer is asked again after this long (not an attempt: the receiver was not tried). */
const ACCESS_RETRY_MS = 60_000;

export const PAUSED_FAILURES_REASON = `Paused after ${PAUSE_AFTER_FAILURES} failed deliveries in a row.`;
export const PAUSED_REVOKED_REASON = 'Paused: the API key that made this webhook was revoked. Resume while signed in with a working key to use yours.';

export interface DeliveryDeps {
  db: Db;
  seal: Seal;
  access: ProjectAccess;
  send: SendWebhook;
  publicUrl: URL;
  allowPrivate: boolean;
  resolve?: Resolve;
  now?: () => number;
  random?: () => number;
  log?: Log;
  /** Each attempt's outcome as it is recorded (metrics count them). */
  attempted?: (result: AttemptResult) => void;
}

/** What became of an attempt: taken, to be tried again, or given up. */
export type AttemptResult = 'delivered' | 'retrying' | 'failed';

/** The headers and exact bytes of one event for one webhook. */
export function signedRequest(hook: Pick<WebhookRow, 'format'>, secret: string, event: NotificationEvent, publicUrl: URL, nowMs: number) {
  const body = renderBody(hook.format, event, publicUrl);
  return {
    body,
    headers: { 'Content-Type': 'application/json', [EVENT_HEADER]: event.id, [SIGNATURE_HEADER]: signatureHeader(secret, body, nowMs) },
  };
}

/** Checks the URL again (rebinding), signs and sends; what the receiver said, or why nothing was sent. */
export async function deliverOnce(deps: DeliveryDeps, hook: WebhookRow, event: NotificationEvent) {
  const { now = Date.now } = deps;
  const secret = deps.seal.open('webhook-secret', hook.secret_sealed);
  if (secret === null) return { status: undefined, answer: 'The signing secret cannot be opened (SESSION_SECRET changed?).', retryAfter: undefined, final: true };
  const checked = await checkWebhookUrl(hook.url, { allowPrivate: deps.allowPrivate, ...(deps.resolve ? { resolve: deps.resolve } : {}) });
  if (!checked.ok) return { status: undefined, answer: `Not sent: ${checked.problem}`, retryAfter: undefined, final: false };
  const { body, headers } = signedRequest(hook, secret, event, deps.publicUrl, now());
  return { ...(await deps.send({ url: checked.url, address: checked.address, body, headers })), final: false };
}

export interface DeliveryWorker {
  /** Claims what is due and starts sending it; resolves once claimed (not once answered). */
  tick: () => Promise<number>;
  /** Resolves when every delivery started so far has its outcome recorded. */
  settle: () => Promise<void>;
}

export function createDeliveryWorker(deps: DeliveryDeps): DeliveryWorker {
  const { db, now = Date.now, random = Math.random, log = () => undefined } = deps;
  const inFlight = new Map<string, Promise<void>>();
  // A receiver that keeps failing is said once (with the first event it missed), and once when it takes one again.
  const receivers = new Map<string, Outage>();
  const receiver = (hook: WebhookRow) => {
    let outage = receivers.get(hook.id);
    if (!outage) {
      outage = createOutage(log, { event: 'webhook.not_delivered', fields: { webhook: hook.id }, over: `Webhook ${hook.id}: delivered again`, failed: ['failed attempt', 'failed attempts'] });
      receivers.set(hook.id, outage);
    }
    return outage;
  };
  // The API not answering a project's read is one outage for every webhook, not a line per delivery a minute.
  const unchecked = createOutage(log, { event: 'webhook.access_unchecked', over: 'Webhooks: project access is checked again', failed: ['failed check', 'failed checks'] });

  const finish = async (row: DeliveryRow, hook: WebhookRow, outcome: { status: number | undefined; answer: string; retryAfter: string | undefined; final: boolean }) => {
    const at = now();
    const verdict = outcome.final ? 'final' : verdictOf(outcome.status);
    const attempts = row.attempts + 1;
    const next = verdict === 'retry' ? nextAttemptAt({ attempts, queuedAt: row.created_at.getTime(), nowMs: at, retryAfter: retryAfterMs(outcome.retryAfter, at), jitter: random() }) : null;
    const state = verdict === 'delivered' ? 'delivered' : next === null ? 'failed' : 'pending';
    await recordAttempt(db, {
      id: row.id,
      state,
      attempted: true,
      status: outcome.status ?? null,
      answer: outcome.answer,
      at: new Date(at),
      nextAttemptAt: next === null ? null : new Date(next),
      visible: true,
    });
    const paused = await recordOutcome(db, hook.id, verdict === 'delivered', PAUSE_AFTER_FAILURES, PAUSED_FAILURES_REASON);
    deps.attempted?.(state === 'pending' ? 'retrying' : state);
    if (verdict === 'delivered') receiver(hook).recovered();
    else {
      const then = state === 'failed' ? 'giving up on it' : `next try ${new Date(next ?? at).toISOString()}`;
      receiver(hook).failed(`Webhook ${hook.id}: event ${row.event_id} not delivered (${outcome.status === undefined ? 'no answer' : `HTTP ${outcome.status}`}); ${then}`, { status: outcome.status });
      if (paused) log(`Webhook ${hook.id}: paused after ${PAUSE_AFTER_FAILURES} failed deliveries in a row`, { event: 'webhook.paused', level: 'warn', webhook: hook.id });
    }
  };

  const deliver = async (row: DeliveryRow): Promise<void> => {
    const hook = await getWebhook(db, row.webhook_id);
    if (!hook || hook.paused_reason !== null) {
      if (hook) await releaseDelivery(db, row.id);
      return;
    }
    const apiKey = deps.seal.open('owner-key', hook.owner_key_sealed);
    const access = apiKey === null ? ({ kind: 'revoked' } as const) : await deps.access.check(hook.id, apiKey, row.project_id);
    const at = new Date(now());
    const scope = scopeOf(hook);
    if (access.kind === 'revoked') {
      await pauseWebhook(db, hook.id, PAUSED_REVOKED_REASON);
      await releaseDelivery(db, row.id);
      log(`Webhook ${hook.id}: its owner's key was refused (401); paused until resumed`, { event: 'webhook.paused', level: 'warn', webhook: hook.id });
      return;
    }
    if (access.kind === 'unknown') {
      await recordAttempt(db, { id: row.id, state: 'pending', attempted: false, status: null, answer: null, at, nextAttemptAt: new Date(at.getTime() + ACCESS_RETRY_MS), visible: false });
      unchecked.failed(`Webhook ${hook.id}: could not check access to the project (${access.answer.message}); asking again in ${ACCESS_RETRY_MS / 1000} s`, { webhook: hook.id });
      return;
    }
    unchecked.recovered();
    if (access.kind === 'denied' || (scope.kind === 'organization' && access.project.orgId !== scope.orgId)) {
      await recordAttempt(db, { id: row.id, state: 'withheld', attempted: false, status: null, answer: null, at, nextAttemptAt: null, visible: false });
      return;
    }
    const event: NotificationEvent = { id: row.event_id, type: row.type, occurredAt: row.occurred_at.toISOString(), project: { id: access.project.id, name: access.project.name }, operation: row.operation };
    await finish(row, hook, await deliverOnce(deps, hook, event));
  };

  return {
    async tick() {
      const at = now();
      const rows = await claimDue(db, new Date(at), new Date(at + LEASE_MS), 20, [...inFlight.keys()]);
      for (const row of rows) {
        const running = deliver(row)
          .catch((error: unknown) => {
            log(`Webhook ${row.webhook_id}: delivery of ${row.event_id} failed inside the server (${error instanceof Error ? error.message : String(error)}); its lease lapses and it is tried again`, { event: 'webhook.internal_error', level: 'error', webhook: row.webhook_id });
          })
          .finally(() => inFlight.delete(row.webhook_id));
        inFlight.set(row.webhook_id, running);
      }
      return rows.length;
    },
    async settle() {
      while (inFlight.size > 0) await Promise.all(inFlight.values());
    },
  };
}
