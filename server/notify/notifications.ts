// Notifications as one service: what the routes ask (webhooks of a key's fingerprint, Send test,
// Resume, the delivery log, watches) and the background loop (dispatch, then deliver) that runs whether or
// not any tab is open. The loop runs where the collector runs (server/lead/leader.ts decides for both); were two to run on one
// DATABASE_URL, the outbox's unique (webhook, event) and its leased, SKIP LOCKED claims would still keep each
// event to one delivery apart from retries.
import { randomBytes } from 'node:crypto';
import { createOutage } from '../log/outage';
import type { CreateWebhook, Delivery, NotificationEventType, OperationWatch, TestResult, Webhook } from '../../src/api/notification-schemas';
import type { DeliveriesQuery } from './deliveries-query';
import { RESEND_WINDOW_MS } from './backoff';
import { deliveryLog, redeliver, type DeliveryRow, type Redelivery } from '../store/deliveries';
import { createDeliveryWorker, deliverOnce, type DeliveryDeps } from './delivery-worker';
import { DISPATCH_BATCH, dispatchLongerThanUsual, dispatchTransitions } from './dispatcher';
import type { Db } from '../store/db';
import type { NotificationEvent } from './payload';
import { newWebhookSecret } from './signature';
import { checkWebhookUrl } from './url-guard';
import {
  deleteWebhook,
  getWebhook,
  insertWatch,
  insertWebhookWithin,
  listWatches,
  listWebhooks,
  resumeWebhook,
  scopeOf,
  type WebhookRow,
} from '../store/webhooks';

/** How often the loop looks for new transitions and due deliveries. */
export const NOTIFY_TICK_MS = 1_000;
/** How often operations in flight are compared with their usual duration. */
export const LONGER_CHECK_MS = 30_000;
/** Open "Notify me when it ends" watches a key may have; those older than WATCH_COUNTS_FOR_MS (an operation that never ended) no longer count. */
export const MAX_OPEN_WATCHES = 200;
export const WATCH_COUNTS_FOR_MS = 7 * 24 * 60 * 60 * 1000;
/** Webhooks a key may have: each is delivery work and memory on every pass (a hundred took 64 MB). */
export const MAX_WEBHOOKS_PER_KEY = 20;

/** Who is asking: the fingerprint of the session's key (which webhooks they see) and the key itself (sealed into what they make). */
export interface Owner {
  fingerprint: string;
  apiKey: string;
}

/** A webhook made, or why not: its URL refused, or the key has MAX_WEBHOOKS_PER_KEY already. */
export type Created = { ok: true; webhook: Webhook; secret: string } | { ok: false; problem: string; reason: 'invalid-url' | 'too-many' };
/** A page of a webhook's delivery log, and the cursor of the next (none: the last). */
export interface DeliveryPage {
  deliveries: Delivery[];
  nextCursor?: string;
}
/** A watch kept, or why not: no webhook to send it to, or too many open already. */
export type Watched = { ok: true; watch: OperationWatch } | { ok: false; reason: 'no-webhook' | 'too-many' };

export interface Notifications {
  list: (owner: Owner) => Promise<Webhook[]>;
  create: (owner: Owner, input: CreateWebhook) => Promise<Created>;
  remove: (owner: Owner, id: string) => Promise<boolean>;
  /** Delivers a sample event now; null when the webhook is not the owner's. */
  test: (owner: Owner, id: string) => Promise<TestResult | null>;
  resume: (owner: Owner, id: string) => Promise<boolean>;
  /** The newest page of the log (null: not the owner's webhook). */
  deliveries: (owner: Owner, id: string) => Promise<Delivery[] | null>;
  /** One page of the log, at most `limit` (MAX_DELIVERIES_PAGE) after `cursor` (a page's nextCursor). */
  deliveryPage: (owner: Owner, id: string, page?: DeliveriesQuery) => Promise<DeliveryPage | null>;
  /** "Redeliver": one event of the log sent again now; null when the webhook is not the owner's; 'paused' while it is. */
  redeliver: (owner: Owner, id: string, eventId: string) => Promise<Redelivery | 'paused' | null>;
  watch: (owner: Owner, projectId: string, operationId: string) => Promise<Watched>;
  watches: (owner: Owner) => Promise<OperationWatch[]>;
  /** One turn of the loop: new transitions queued, longer-than-usual checked when due, due deliveries started. */
  tick: () => Promise<void>;
  /** Waits for the deliveries started so far (tests, shutdown). */
  settle: () => Promise<void>;
  /** Starts the loop on a timer; returns a stop function that waits for deliveries in flight. */
  start: () => () => Promise<void>;
}

export type NotificationsOptions = Omit<DeliveryDeps, 'db'> & { db: Db; tickMs?: number };

function webhookOf(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    format: row.format,
    scope: scopeOf(row),
    events: row.events,
    state: row.paused_reason === null ? 'active' : 'paused',
    pausedReason: row.paused_reason,
    consecutiveFailures: row.consecutive_failures,
    failingSince: row.failing_since?.toISOString() ?? null,
    lastSuccessAt: row.last_success_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

function deliveryOf(row: DeliveryRow, nowMs: number): Delivery {
  const leased = row.lease_until !== null && row.lease_until.getTime() > nowMs;
  return {
    eventId: row.event_id,
    type: row.type,
    projectId: row.project_id,
    projectName: row.project_name,
    operationId: row.operation_id,
    action: typeof row.operation.action === 'string' ? row.operation.action : null,
    state: row.state === 'withheld' ? 'failed' : row.state,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastAnswer: row.last_answer,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    lastDurationMs: row.last_duration_ms,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
    occurredAt: row.occurred_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    payload: row.last_body,
    redeliverable: !leased && row.created_at.getTime() >= nowMs - RESEND_WINDOW_MS,
  };
}

/** The sample "Send test" delivers: a finished operation that never existed, marked as a test. */
export function sampleEvent(nowMs: number): NotificationEvent {
  const at = new Date(nowMs).toISOString();
  const id = `test-${randomBytes(6).toString('hex')}`;
  const type: NotificationEventType = 'operation.finished';
  return {
    id: `${id}:finished`,
    type,
    occurredAt: at,
    project: { id: 'test-project', name: 'Test project (sample event)' },
    operation: {
      id,
      project_id: 'test-project',
      action: 'apply_config',
      status: 'finished',
      created_at: at,
      updated_at: at,
      total_duration_ms: 1200,
      failures_count: 0,
    },
  };
}

export function createNotifications(options: NotificationsOptions): Notifications {
  const { db, now = Date.now, log = () => undefined, tickMs = NOTIFY_TICK_MS } = options;
  const worker = createDeliveryWorker(options);
  const owned = async (owner: Owner, id: string) => {
    const row = await getWebhook(db, id);
    return row && row.owner_fingerprint === owner.fingerprint ? row : undefined;
  };
  const sealKey = (owner: Owner) => options.seal.seal('owner-key', owner.apiKey);
  let lastLongerCheck = -Infinity;

  const tick = async () => {
    const at = new Date(now());
    while ((await dispatchTransitions(db, at)).transitions === DISPATCH_BATCH) {
      // Catching up after a pause or a restart, one batch per transaction.
    }
    if (at.getTime() - lastLongerCheck >= LONGER_CHECK_MS) {
      lastLongerCheck = at.getTime();
      await dispatchLongerThanUsual(db, at);
    }
    await worker.tick();
  };

  const deliveryPage = async (owner: Owner, id: string, page: DeliveriesQuery = {}): Promise<DeliveryPage | null> => {
    if (!(await owned(owner, id))) return null;
    const at = now();
    const { rows, next } = await deliveryLog(db, id, { ...(page.limit ? { limit: page.limit } : {}), before: page.cursor });
    return { deliveries: rows.map((row) => deliveryOf(row, at)), ...(next ? { nextCursor: next } : {}) };
  };

  return {
    list: async (owner) => (await listWebhooks(db, owner.fingerprint)).map(webhookOf),
    async create(owner, input) {
      const tooMany = {
        ok: false,
        reason: 'too-many',
        problem: `A key can have at most ${MAX_WEBHOOKS_PER_KEY} webhooks: remove one before adding another.`,
      } as const;
      if ((await listWebhooks(db, owner.fingerprint)).length >= MAX_WEBHOOKS_PER_KEY) return tooMany;
      const checked = await checkWebhookUrl(input.url, { allowPrivate: options.allowPrivate, ...(options.resolve ? { resolve: options.resolve } : {}) });
      if (!checked.ok) return { ok: false, reason: 'invalid-url', problem: checked.problem };
      const secret = newWebhookSecret();
      // Counted again as it is kept: two added at once cannot pass the limit together.
      const row = await insertWebhookWithin(
        db,
        {
          id: `wh_${randomBytes(9).toString('base64url')}`,
          ownerFingerprint: owner.fingerprint,
          ownerKeySealed: sealKey(owner),
          url: checked.url.toString(),
          format: input.format,
          scope: input.scope,
          events: [...new Set(input.events)],
          secretSealed: options.seal.seal('webhook-secret', secret),
          createdAt: new Date(now()),
        },
        MAX_WEBHOOKS_PER_KEY,
      );
      return row ? { ok: true, webhook: webhookOf(row), secret } : tooMany;
    },
    remove: (owner, id) => deleteWebhook(db, id, owner.fingerprint),
    async test(owner, id) {
      const row = await owned(owner, id);
      if (!row) return null;
      const outcome = await deliverOnce(options, row, sampleEvent(now()));
      const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
      return { delivered, status: outcome.status ?? null, answer: outcome.answer };
    },
    // Resuming with the asker's key: a webhook paused because its maker's key was revoked works again with a live one.
    resume: async (owner, id) =>
      (await owned(owner, id)) ? resumeWebhook(db, id, owner.fingerprint, new Date(now()), new Date(now() - RESEND_WINDOW_MS), sealKey(owner)) : false,
    deliveries: async (owner, id) => (await deliveryPage(owner, id))?.deliveries ?? null,
    deliveryPage,
    async redeliver(owner, id, eventId) {
      const row = await owned(owner, id);
      if (!row) return null;
      if (row.paused_reason !== null) return 'paused';
      return redeliver(db, id, eventId, new Date(now()), new Date(now() - RESEND_WINDOW_MS));
    },
    async watch(owner, projectId, operationId) {
      const hooks = await listWebhooks(db, owner.fingerprint);
      if (hooks.length === 0) return { ok: false, reason: 'no-webhook' };
      const at = now();
      const kept = await insertWatch(db, {
        ownerFingerprint: owner.fingerprint,
        projectId,
        operationId,
        now: new Date(at),
        maxOpen: MAX_OPEN_WATCHES,
        countSince: new Date(at - WATCH_COUNTS_FOR_MS),
      });
      if (!kept) return { ok: false, reason: 'too-many' };
      return { ok: true, watch: { projectId, operationId, createdAt: new Date(now()).toISOString(), webhooks: hooks.length } };
    },
    async watches(owner) {
      const hooks = await listWebhooks(db, owner.fingerprint);
      return (await listWatches(db, owner.fingerprint)).map((w) => ({
        projectId: w.project_id,
        operationId: w.operation_id,
        createdAt: w.created_at.toISOString(),
        webhooks: hooks.length,
      }));
    },
    tick,
    settle: () => worker.settle(),
    start() {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let current: Promise<void> = Promise.resolve();
      // A pass a second: a store that does not answer is said once, and once when it does again.
      const failing = createOutage(log, { event: 'notify.pass_failed', over: 'Notifications: passes work again', failed: ['failed pass', 'failed passes'] });
      const loop = () => {
        current = tick()
          .then(
            () => failing.recovered(),
            (error: unknown) =>
              failing.failed(`Notifications: a pass failed (${error instanceof Error ? error.message : String(error)}); trying again every ${tickMs / 1000} s`),
          )
          .finally(() => {
            if (!stopped) timer = setTimeout(loop, tickMs);
          });
      };
      timer = setTimeout(loop, 0);
      return async () => {
        stopped = true;
        clearTimeout(timer);
        await current;
        await worker.settle();
      };
    },
  };
}
