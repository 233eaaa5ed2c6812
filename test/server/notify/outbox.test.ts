import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { PARALLEL_PER_WEBHOOK } from '../../../server/notify/backoff';
import { dispatchTransitions } from '../../../server/notify/dispatcher';
import { createNotifications, type Notifications } from '../../../server/notify/notifications';
import { createApiReader } from '../../../server/proxy/api-reader';
import { createProjectAccess } from '../../../server/proxy/project-access';
import { sendWebhook } from '../../../server/notify/send-webhook';
import { verifySignature } from '../../../server/notify/signature';
import { startReceiver } from './loopback-receiver';
import { DRIVERS } from '../store/store-drivers';
import { recordTransition } from './notify-test-db';
import { fakeApi, owner, seal, T0, useHarness } from './outbox-harness';

/** A promise and what settles it. */
function resolvable() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve: () => resolve() };
}

/** The Standard Webhooks headers a receiver reads, as one record. */
function standardHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
}

/** What a receiver's own library (npm standardwebhooks) makes of a delivery received at `nowMs`. */
function libraryVerifies(secret: string, body: string, headers: Record<string, string | string[] | undefined>, nowMs: number): unknown {
  // The library checks the timestamp against Date.now(): the receiver's clock is the test's.
  vi.setSystemTime(nowMs);
  try {
    return new Webhook(secret).verify(body, standardHeaders(headers));
  } finally {
    vi.useRealTimers();
  }
}

describe.each(DRIVERS)('the outbox on %s', (driver) => {
  const h = useHarness(driver);
  const { service, addWebhook, fail, turn } = h;

  it('queues each event once per webhook, with two dispatchers racing and its transitions claimed again after a crash', async () => {
    const notify = service();
    await addWebhook(notify);
    h.clock += 1000;
    await fail('op-1');
    await fail('op-2');
    await Promise.all([dispatchTransitions(h.db, new Date(h.clock)), dispatchTransitions(h.db, new Date(h.clock))]);
    // A crash between queueing and the mark would leave them undispatched: claimed again, queued once.
    await h.db.query('UPDATE operation_transitions SET dispatched_at = NULL');
    await dispatchTransitions(h.db, new Date(h.clock));

    const { rows } = await h.db.query<{ event_id: string }>('SELECT event_id FROM notify_deliveries ORDER BY event_id');
    expect(rows.map((row) => row.event_id)).toEqual(['op-1:failed:1', 'op-2:failed:1']);
  });

  // PGlite runs one transaction at a time (one connection): a transaction held open there holds every other, so
  // only a Postgres server can commit transitions out of their `seq` order.
  if (driver === 'postgres')
    it('delivers a transition whose transaction commits after a later one was dispatched', async () => {
      const notify = service();
      await addWebhook(notify);
      await turn(notify);
      h.clock += 1000;
      const held = resolvable();
      const inserted = resolvable();
      // The collector's slower transaction takes the lower seq and commits last.
      const slow = h.db.transaction(async (tx) => {
        await recordTransition(tx, {
          projectId: 'p1',
          operation: { id: 'op-slow', status: 'failed', failures_count: 1 },
          previousStatus: 'running',
          seenAt: new Date(h.clock),
        });
        inserted.resolve();
        await held.promise;
      });
      await inserted.promise;
      await fail('op-quick');
      await turn(notify);
      const eventIds = () => h.receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
      expect(eventIds()).toEqual(['op-quick:failed:1']);

      held.resolve();
      await slow;
      await turn(notify);
      expect(eventIds()).toEqual(['op-quick:failed:1', 'op-slow:failed:1']);
      const { rows } = await h.db.query<{ seq: string; operation_id: string }>('SELECT seq::text AS seq, operation_id FROM operation_transitions ORDER BY seq');
      expect(rows.map((row) => row.operation_id)).toEqual(['op-slow', 'op-quick']);
    });

  it('raises nothing for transitions seen during the backfill or before the webhook existed', async () => {
    const notify = service();
    await notify.tick();
    await fail('op-before');
    h.clock += 1000;
    await addWebhook(notify);
    h.clock += 1000;
    await recordTransition(h.db, { projectId: 'p1', operation: { id: 'op-backfill', status: 'failed' }, seenAt: new Date(h.clock), duringBackfill: true });
    await turn(notify);

    expect(h.receiver.received).toEqual([]);
  });

  it("delivers one event signed as Standard Webhooks, verified by a receiver's own library, and a restart does not send it again", async () => {
    const first = service();
    const { secret } = await addWebhook(first);
    await first.tick();
    await fail('op-1', 'p1', { updated_at: '2026-11-25T23:59:58Z' });
    await turn(first);
    const again = service();
    await turn(again);
    await turn(first);

    expect(h.receiver.received).toHaveLength(1);
    const [request] = h.receiver.received;
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['webhook-id']).toBe('op-1:failed:1');
    expect(request?.headers['webhook-timestamp']).toBe(String(T0 / 1000));
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const event = {
      id: 'op-1:failed:1',
      type: 'operation.failed',
      occurred_at: new Date(T0).toISOString(),
      updated_at: '2026-11-25T23:59:58Z',
      project: { id: 'p1', name: 'Production' },
      operation: { id: 'op-1', status: 'failed' },
      url: 'https://console.example.com/projects/p1/operations/op-1',
    };
    expect(libraryVerifies(secret, request?.body ?? '', request?.headers ?? {}, h.clock)).toMatchObject(event);
    expect(verifySignature(secret, request?.body ?? '', request?.headers ?? {}, h.clock)).toBe(true);
  });

  it('keeps an event while the receiver is down, honours Retry-After, sends the same webhook-id each time, and the log shows the attempts', async () => {
    const notify = service();
    const { webhook, secret } = await addWebhook(notify);
    await notify.tick();
    h.receiver.answerWith(() => ({ status: 503, body: 'down for maintenance', headers: { 'retry-after': '30' } }));
    await fail('op-1');
    await turn(notify);
    h.clock += 20_000;
    await turn(notify);
    expect(h.receiver.received).toHaveLength(1);
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([
      {
        eventId: 'op-1:failed:1',
        state: 'pending',
        attempts: 1,
        lastStatus: 503,
        lastAnswer: 'down for maintenance',
        nextAttemptAt: new Date(T0 + 30_000).toISOString(),
      },
    ]);

    // The second failure waits the schedule's second step: 5 minutes.
    h.receiver.answerWith(() => ({ status: 500 }));
    h.clock += 10_000;
    await turn(notify);
    h.receiver.answerWith(() => ({ status: 204 }));
    h.clock += 299_000;
    await turn(notify);
    expect(h.receiver.received).toHaveLength(2);
    h.clock += 1_000;
    await turn(notify);

    expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual(['op-1:failed:1', 'op-1:failed:1', 'op-1:failed:1']);
    const last = h.receiver.received[2];
    expect(libraryVerifies(secret, last?.body ?? '', last?.headers ?? {}, h.clock)).toMatchObject({ id: 'op-1:failed:1' });
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([{ state: 'delivered', attempts: 3, lastStatus: 204, nextAttemptAt: null }]);
  });

  it('does not retry a 4xx other than 410 and 429', async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    await notify.tick();
    h.receiver.answerWith(() => ({ status: 400, body: 'bad request' }));
    await fail('op-1');
    await turn(notify);
    h.clock += 3_600_000;
    await turn(notify);

    expect(h.receiver.received).toHaveLength(1);
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([{ state: 'failed', attempts: 1, lastStatus: 400 }]);
    expect(await notify.list(owner)).toMatchObject([{ state: 'active' }]);
  });

  it("withholds events about a project the maker's key cannot read, and about projects outside the webhook's scope", async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    await addWebhook(notify, { scope: { kind: 'organization', orgId: 'org-2' } });
    await notify.tick();
    await fail('op-hidden', 'p-other');
    await fail('op-1', 'p1');
    await turn(notify);
    await turn(notify);

    expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual(['op-1:failed:1']);
    expect((await notify.deliveries(owner, webhook.id))?.map((d) => d.eventId)).toEqual(['op-1:failed:1']);
  });

  it('"Notify me when it ends" sends the end of a watched operation to every webhook of the person who asked', async () => {
    const notify = service();
    await addWebhook(notify, { events: ['operation.failed'] });
    await notify.tick();
    expect(await notify.watch(owner, 'p2', 'op-7')).toMatchObject({ ok: true, watch: { projectId: 'p2', operationId: 'op-7', webhooks: 1 } });
    h.clock += 1000;
    await recordTransition(h.db, { projectId: 'p2', operation: { id: 'op-7', status: 'finished' }, previousStatus: 'running', seenAt: new Date(h.clock) });
    await recordTransition(h.db, { projectId: 'p2', operation: { id: 'op-8', status: 'finished' }, previousStatus: 'running', seenAt: new Date(h.clock) });
    await turn(notify);

    expect(h.receiver.received.map((r) => JSON.parse(r.body) as { type: string; id: string })).toMatchObject([
      { type: 'operation.finished', id: 'op-7:finished' },
    ]);
  });

  it('a receiver that never answers holds up only its own webhook, with at most a few of its events in flight', async () => {
    const notify = service();
    const slow = await startReceiver(() => 'hang');
    try {
      await addWebhook(notify, { url: slow.url });
      await addWebhook(notify);
      for (let i = 1; i <= 6; i += 1) await fail(`op-${i}`);
      await notify.tick();
      // The quick receiver gets all six from that one tick while the slow one holds its first four.
      await Promise.all([slow.until(PARALLEL_PER_WEBHOOK), h.receiver.until(6)]);
      await notify.tick();

      expect(slow.received).toHaveLength(PARALLEL_PER_WEBHOOK);
    } finally {
      await slow.close();
      await notify.settle();
    }
  });

  /** A service with a "longer than usual" webhook, and p1's history of an action that took 10 s each time, ended as `statuses` say. */
  async function usualAt10s(statuses: readonly string[]): Promise<Notifications> {
    const notify = service();
    await addWebhook(notify, { events: ['operation.longer_than_usual'] });
    await notify.tick();
    for (const [i, status] of statuses.entries()) {
      const created = new Date(h.clock - 3_600_000 + i * 60_000).toISOString();
      await recordTransition(h.db, {
        projectId: 'p1',
        operation: { id: `ended-${i}`, status, created_at: created, total_duration_ms: 10_000 },
        previousStatus: 'running',
        seenAt: new Date(h.clock),
      });
    }
    return notify;
  }

  /** Started 25 s ago with `status`. */
  const startedAgo = (id: string, status: string) =>
    recordTransition(h.db, {
      projectId: 'p1',
      operation: { id, status, created_at: new Date(h.clock - 25_000).toISOString() },
      previousStatus: 'scheduling',
      seenAt: new Date(h.clock),
    });

  /** Two minutes of the loop's turns: 25 s in becomes 146 s, past twice the p95 and past 30 s. */
  async function twoMinutes(notify: Notifications): Promise<string[]> {
    for (let minute = 0; minute < 2; minute += 1) {
      h.clock += 60_500;
      await turn(notify);
    }
    return h.receiver.received.map((r) => (JSON.parse(r.body) as { id: string; type: string }).id);
  }

  it('raises "longer than usual" once for an operation in flight past twice its action\'s p95 and past 30 s', async () => {
    const notify = await usualAt10s(['finished', 'finished', 'finished', 'finished', 'finished']);
    await startedAgo('slow', 'running');
    h.clock += 1_000;
    await turn(notify);
    expect(h.receiver.received).toHaveLength(0);

    expect(await twoMinutes(notify)).toEqual(['slow:longer_than_usual']);
  });

  it('raises "longer than usual" for an operation of a status the console does not know (in flight, as a page counts it), not for a failure awaiting its retry', async () => {
    const notify = await usualAt10s(['finished', 'finished', 'finished', 'finished', 'finished']);
    await startedAgo('slow-unknown', 'paused_by_platform');
    await fail('slow-failed', 'p1', { created_at: new Date(h.clock - 25_000).toISOString(), retry_at: new Date(h.clock + 3_600_000).toISOString() });

    expect(await twoMinutes(notify)).toEqual(['slow-unknown:longer_than_usual']);
  });

  it('reads usual durations as the page does: ended operations of every outcome, not only the OK ones', async () => {
    // The action's history ended in errors and cancellations, each with its duration: the page's history shows it usual at 10 s.
    const notify = await usualAt10s(['error', 'cancelled', 'error', 'cancelled', 'error', 'cancelled']);
    await startedAgo('slow-again', 'running');

    expect(await twoMinutes(notify)).toEqual(['slow-again:longer_than_usual']);
  });

  it('"Send test" delivers a signed sample at once and returns what the receiver answered', async () => {
    const notify = service();
    const { webhook, secret } = await addWebhook(notify, { format: 'slack' });
    h.receiver.answerWith(() => ({ status: 200, body: 'ok from slack' }));

    expect(await notify.test(owner, webhook.id)).toEqual({ delivered: true, status: 200, answer: 'ok from slack' });
    const [request] = h.receiver.received;
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({
      text: expect.stringContaining('Test project') as string,
      blocks: expect.any(Array) as unknown[],
    });
    expect(verifySignature(secret, request?.body ?? '', request?.headers ?? {}, h.clock)).toBe(true);
    expect(await notify.test({ ...owner, fingerprint: 'someone-else' }, webhook.id)).toBeNull();
  });

  it('refuses a private address unless WEBHOOK_ALLOW_PRIVATE is set, and says so', async () => {
    const strict = createNotifications({
      db: h.db,
      seal,
      access: createProjectAccess(createApiReader(fakeApi)),
      send: sendWebhook,
      publicUrl: new URL('http://x/'),
      allowPrivate: false,
    });
    expect(await strict.create(owner, { url: h.receiver.url, format: 'json', scope: { kind: 'all' }, events: ['operation.failed'] })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/loopback, private.*WEBHOOK_ALLOW_PRIVATE=1/) as string,
    });
  });
});
