// Sends what the outbox holds (docs/notifications.md, "Delivery and retries"). Each tick finds the webhooks
// with deliveries due and runs up to PARALLEL_PER_WEBHOOK lanes for each in this process: a lane claims one due
// delivery at a time and goes on to the next as soon as it is answered, so a backlog drains a few at a time
// instead of one a tick, and a slow receiver holds up only its own lanes, never the collector (a separate loop)
// nor other webhooks. Every attempt is recorded on its row; the webhook's outcome on the webhook (a 410
// disables it, failing for PAUSE_AFTER_FAILING_MS pauses it, a success after failures brings its waiting events
// forward).
import type { Log } from '../log/logger';
import { createOutage, type Outage } from '../log/outage';
import { nextAttemptAt, PARALLEL_PER_WEBHOOK, PAUSE_AFTER_FAILING_MS, retryAfterMs, verdictOf } from './backoff';
import { bringForward, claimNext, dueWebhooks, recordAttempt, releaseDelivery, type DeliveryRow } from '../store/deliveries';
import type { Db } from '../store/db';
import { startersOf } from '../store/audit-trail';
import { renderBody, type NotificationEvent } from './payload';
import type { ProjectAccess } from '../proxy/project-access';
import type { Seal } from '../seal/seal';
import type { SendWebhook, WebhookAnswer } from './send-webhook';
import { signatureHeaders } from './signature';
import type { Resolve } from './url-guard';
import { checkWebhookUrl } from './url-guard';
import { getWebhook, pauseWebhook, recordOutcome, scopeOf, type WebhookRow } from '../store/webhooks';

/** A claimed delivery is another instance's to take over once this long has passed without an answer recorded. */
export const LEASE_MS = 60_000;
/** A project read the API did not answer is asked again after this long (not an attempt: the receiver was not tried). */
const ACCESS_RETRY_MS = 60_000;
/** Webhooks looked at per tick (each with its lanes). */
const WEBHOOKS_PER_TICK = 100;

export const PAUSED_FAILING_REASON = `Paused: every delivery failed for ${PAUSE_AFTER_FAILING_MS / 86_400_000} days. Resume sends what waited and what failed in the last 3 days.`;
export const DISABLED_GONE_REASON = 'Disabled: the receiver answered 410 Gone, which means it no longer takes these events. Resume once it does again.';
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

/** The headers and exact bytes of one event for one webhook. */
export function signedRequest(hook: Pick<WebhookRow, 'format'>, secret: string, event: NotificationEvent, publicUrl: URL, nowMs: number) {
  const body = renderBody(hook.format, event, publicUrl);
  return { body, headers: { 'Content-Type': 'application/json', ...signatureHeaders(secret, event.id, body, nowMs) } };
}

export interface Attempt extends WebhookAnswer {
  /** Never worth trying again as it is (the secret cannot be opened). */
  final: boolean;
  /** What was sent, when something was. */
  body: string | undefined;
  durationMs: number | undefined;
}

/** Checks the URL again (rebinding), signs and sends; what the receiver said, or why nothing was sent. */
export async function deliverOnce(deps: DeliveryDeps, hook: WebhookRow, event: NotificationEvent): Promise<Attempt> {
  const { now = Date.now } = deps;
  const secret = deps.seal.open('webhook-secret', hook.secret_sealed);
  if (secret === null)
    return {
      status: undefined,
      answer: 'The signing secret cannot be opened (SESSION_SECRET changed?).',
      retryAfter: undefined,
      final: true,
      body: undefined,
      durationMs: undefined,
    };
  const checked = await checkWebhookUrl(hook.url, { allowPrivate: deps.allowPrivate, ...(deps.resolve ? { resolve: deps.resolve } : {}) });
  if (!checked.ok)
    return { status: undefined, answer: `Not sent: ${checked.problem}`, retryAfter: undefined, final: false, body: undefined, durationMs: undefined };
  const started = now();
  const { body, headers } = signedRequest(hook, secret, event, deps.publicUrl, started);
  const answer = await deps.send({ url: checked.url, address: checked.address, body, headers });
  return { ...answer, final: false, body, durationMs: Math.max(0, now() - started) };
}

/** What became of an attempt: taken, to be tried again, or given up. */
export type AttemptResult = 'delivered' | 'retrying' | 'failed';

export interface DeliveryWorker {
  /** Starts lanes for the webhooks with deliveries due; resolves once they are started (not once answered). */
  tick: () => Promise<number>;
  /** Resolves when every lane started so far has run out of due deliveries. */
  settle: () => Promise<void>;
}

export function createDeliveryWorker(deps: DeliveryDeps): DeliveryWorker {
  const { db, now = Date.now, random = Math.random, log = () => undefined } = deps;
  const lanes = new Map<string, number>();
  // A receiver that keeps failing is said once (with the first event it missed), and once when it takes one again.
  const receivers = new Map<string, Outage>();
  const receiver = (hook: WebhookRow) => {
    let outage = receivers.get(hook.id);
    if (!outage) {
      outage = createOutage(log, {
        event: 'webhook.not_delivered',
        fields: { webhook: hook.id },
        over: `Webhook ${hook.id}: delivered again`,
        failed: ['failed attempt', 'failed attempts'],
      });
      receivers.set(hook.id, outage);
    }
    return outage;
  };
  // The API not answering a project's read is one outage for every webhook, not a line per delivery a minute.
  const unchecked = createOutage(log, {
    event: 'webhook.access_unchecked',
    over: 'Webhooks: project access is checked again',
    failed: ['failed check', 'failed checks'],
  });
  const running = new Set<Promise<void>>();

  const finish = async (row: DeliveryRow, hook: WebhookRow, projectName: string, outcome: Attempt) => {
    const at = now();
    const verdict = outcome.final ? 'final' : verdictOf(outcome.status);
    const next =
      verdict === 'retry'
        ? nextAttemptAt({ attempts: row.round_attempts + 1, nowMs: at, retryAfter: retryAfterMs(outcome.retryAfter, at), jitter: random() })
        : null;
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
      ...(outcome.body === undefined ? {} : { sent: { projectName, body: outcome.body, durationMs: outcome.durationMs ?? 0 } }),
    });
    const { recovered, paused } = await recordOutcome(
      db,
      hook.id,
      verdict === 'delivered',
      new Date(at),
      new Date(at - PAUSE_AFTER_FAILING_MS),
      PAUSED_FAILING_REASON,
    );
    if (recovered) {
      await bringForward(db, hook.id, new Date(at));
      fill(hook.id, PARALLEL_PER_WEBHOOK);
    }
    deps.attempted?.(state === 'pending' ? 'retrying' : state);
    if (verdict === 'delivered') receiver(hook).recovered();
    if (paused)
      log(`Webhook ${hook.id}: paused after failing for ${Math.round(PAUSE_AFTER_FAILING_MS / 86_400_000)} days without a success`, {
        event: 'webhook.paused',
        level: 'warn',
        webhook: hook.id,
      });
    if (verdict === 'gone') {
      await pauseWebhook(db, hook.id, DISABLED_GONE_REASON);
      log(`Webhook ${hook.id}: the receiver answered 410 Gone to event ${row.event_id}; webhook disabled until resumed`, {
        event: 'webhook.disabled',
        level: 'warn',
        webhook: hook.id,
      });
    } else if (verdict !== 'delivered') {
      const then = state === 'failed' ? 'giving up on it' : `next try ${new Date(next ?? at).toISOString()}`;
      receiver(hook).failed(
        `Webhook ${hook.id}: event ${row.event_id} not delivered (${outcome.status === undefined ? 'no answer' : `HTTP ${outcome.status}`}); ${then}`,
        { status: outcome.status },
      );
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
      await recordAttempt(db, {
        id: row.id,
        state: 'pending',
        attempted: false,
        status: null,
        answer: null,
        at,
        nextAttemptAt: new Date(at.getTime() + ACCESS_RETRY_MS),
        visible: false,
      });
      unchecked.failed(`Webhook ${hook.id}: could not check access to the project (${access.answer.message}); asking again in ${ACCESS_RETRY_MS / 1000} s`, {
        webhook: hook.id,
      });
      return;
    }
    unchecked.recovered();
    if (access.kind === 'denied' || (scope.kind === 'organization' && access.project.orgId !== scope.orgId)) {
      await recordAttempt(db, { id: row.id, state: 'withheld', attempted: false, status: null, answer: null, at, nextAttemptAt: null, visible: false });
      return;
    }
    const event: NotificationEvent = {
      id: row.event_id,
      type: row.type,
      occurredAt: row.occurred_at.toISOString(),
      project: { id: access.project.id, name: access.project.name },
      operation: row.operation,
      // Who started it through the console (team sign-in's audit trail); nothing for an operation started elsewhere.
      actor: (await startersOf(db, [row.operation.id])).get(row.operation.id),
    };
    await finish(row, hook, access.project.name, await deliverOnce(deps, hook, event));
  };

  /** One lane: due deliveries of one webhook, one after another, until none is due. */
  const lane = async (webhookId: string) => {
    for (;;) {
      const at = now();
      const row = await claimNext(db, webhookId, new Date(at), new Date(at + LEASE_MS));
      if (!row) return;
      try {
        await deliver(row);
      } catch (error) {
        log(
          `Webhook ${webhookId}: delivery of ${row.event_id} failed inside the server (${error instanceof Error ? error.message : String(error)}); its lease lapses and it is tried again`,
          { event: 'webhook.internal_error', level: 'error', webhook: webhookId },
        );
        return;
      }
    }
  };

  const startLane = (webhookId: string) => {
    lanes.set(webhookId, (lanes.get(webhookId) ?? 0) + 1);
    const run: Promise<void> = lane(webhookId)
      .catch((error: unknown) =>
        log(`Webhook ${webhookId}: the store did not answer a claim (${error instanceof Error ? error.message : String(error)}); trying again next tick`, {
          event: 'webhook.claim_failed',
          level: 'error',
          webhook: webhookId,
        }),
      )
      .finally(() => {
        const left = (lanes.get(webhookId) ?? 1) - 1;
        if (left > 0) lanes.set(webhookId, left);
        else lanes.delete(webhookId);
        running.delete(run);
      });
    running.add(run);
  };

  /** Starts lanes for a webhook up to the limit (or up to `due` more); how many it started. */
  function fill(webhookId: string, due: number): number {
    const free = Math.max(0, Math.min(due, PARALLEL_PER_WEBHOOK - (lanes.get(webhookId) ?? 0)));
    for (let i = 0; i < free; i += 1) startLane(webhookId);
    return free;
  }

  return {
    async tick() {
      let started = 0;
      for (const { webhook_id: id, due } of await dueWebhooks(db, new Date(now()), WEBHOOKS_PER_TICK)) started += fill(id, due);
      return started;
    },
    async settle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
