import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreateWebhook } from '../../../src/api/notification-schemas';
import { dispatchTransitions } from '../../../server/notify/dispatcher';
import type { Db } from '../../../server/store/db';
import { createNotifications, type Notifications, type Owner } from '../../../server/notify/notifications';
import { createApiReader } from '../../../server/proxy/api-reader';
import { createProjectAccess } from '../../../server/proxy/project-access';
import { createSeal } from '../../../server/session/seal';
import { sendWebhook } from '../../../server/notify/send-webhook';
import { verifySignature } from '../../../server/notify/signature';
import type { ApiCall } from '../../../server/http/node-bridge';
import { startReceiver } from './loopback-receiver';
import { DRIVERS, openTestStore } from '../store/store-drivers';
import { emptyNotifyTables, recordTransition } from './notify-test-db';

const KEY = 'owner-api-key-000000000000000000';
const owner: Owner = { fingerprint: 'fp-owner', apiKey: KEY };
const seal = createSeal('a-session-secret-that-is-long-enough-for-hkdf');
const T0 = Date.parse('2026-11-26T00:00:00Z');

/** The API as far as notifications ask it: the owner's key reads p1 and p2 (org-1), not p-other. */
async function fakeApi(call: ApiCall): Promise<Response> {
  await Promise.resolve();
  if (call.headers.get('authorization') !== `Bearer ${KEY}`) return Response.json({ message: 'bad key' }, { status: 401 });
  const id = /\/projects\/([^/?]+)$/.exec(call.target)?.[1];
  if (id === 'p1' || id === 'p2') return Response.json({ project: { id, name: id === 'p1' ? 'Production' : 'Staging', org_id: 'org-1' } });
  return Response.json({ message: 'not found' }, { status: 404 });
}

let db: Db;
let clock: number;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

function service(): Notifications {
  return createNotifications({
    db,
    seal,
    access: createProjectAccess(createApiReader(fakeApi), { now: () => clock }),
    send: sendWebhook,
    publicUrl: new URL('https://console.example.com/'),
    allowPrivate: true,
    now: () => clock,
    random: () => 0,
  });
}

async function addWebhook(notify: Notifications, input: Partial<CreateWebhook> = {}) {
  const created = await notify.create(owner, { url: receiver.url, format: 'json', scope: { kind: 'all' }, events: ['operation.failed'], ...input });
  if (!created.ok) throw new Error(created.problem);
  return created;
}

async function fail(operationId: string, projectId = 'p1', extra: Record<string, unknown> = {}) {
  await recordTransition(db, { projectId, operation: { id: operationId, status: 'failed', failures_count: 1, ...extra }, previousStatus: 'running', seenAt: new Date(clock) });
}

async function turn(notify: Notifications) {
  await notify.tick();
  await notify.settle();
}

describe.each(DRIVERS)('the outbox on %s', (driver) => {
  beforeAll(async () => {
    db = (await openTestStore(driver)).db;
  }, 60_000);

  afterAll(() => db.close());

  beforeEach(async () => {
    await emptyNotifyTables(db);
    clock = T0;
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await receiver.close();
  });

  it('queues each event once per webhook, with two dispatchers racing and a re-read from the start', async () => {
    const notify = service();
    await addWebhook(notify);
    await notify.tick(); // places the cursor
    clock += 1000;
    await fail('op-1');
    await fail('op-2');
    await Promise.all([dispatchTransitions(db, new Date(clock)), dispatchTransitions(db, new Date(clock))]);
    await db.query(`UPDATE notify_cursor SET seq = 0`);
    await dispatchTransitions(db, new Date(clock));

    const { rows } = await db.query<{ event_id: string }>('SELECT event_id FROM notify_deliveries ORDER BY event_id');
    expect(rows.map((row) => row.event_id)).toEqual(['op-1:failed:1', 'op-2:failed:1']);
  });

  it('raises nothing for transitions seen during the backfill or before the webhook existed', async () => {
    const notify = service();
    await notify.tick();
    await fail('op-before');
    clock += 1000;
    await addWebhook(notify);
    clock += 1000;
    await recordTransition(db, { projectId: 'p1', operation: { id: 'op-backfill', status: 'failed' }, seenAt: new Date(clock), duringBackfill: true });
    await turn(notify);

    expect(receiver.received).toEqual([]);
  });

  it('delivers one signed JSON event to a loopback receiver, and a restart does not send it again', async () => {
    const first = service();
    const { secret } = await addWebhook(first);
    await first.tick();
    await fail('op-1');
    await turn(first);
    const again = service();
    await turn(again);
    await turn(first);

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-ops-console-event']).toBe('op-1:failed:1');
    expect(verifySignature(secret, request?.body ?? '', String(request?.headers['x-ops-console-signature']), clock)).toBe(true);
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      id: 'op-1:failed:1',
      type: 'operation.failed',
      project: { id: 'p1', name: 'Production' },
      operation: { id: 'op-1', status: 'failed' },
      url: 'https://console.example.com/projects/p1/operations/op-1',
    });
  });

  it('keeps events while the receiver is down, honours Retry-After, and delivers them once it is back; the log shows the attempts', async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    await notify.tick();
    receiver.answerWith(() => ({ status: 503, body: 'down for maintenance', headers: { 'retry-after': '30' } }));
    await fail('op-1');
    await turn(notify);
    clock += 20_000;
    await turn(notify);
    expect(receiver.received).toHaveLength(1);
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([
      { eventId: 'op-1:failed:1', state: 'pending', attempts: 1, lastStatus: 503, lastAnswer: 'down for maintenance', nextAttemptAt: new Date(T0 + 30_000).toISOString() },
    ]);

    receiver.answerWith(() => ({ status: 500 }));
    clock += 10_000;
    await turn(notify);
    receiver.answerWith(() => ({ status: 204 }));
    clock += 20_000;
    await turn(notify);
    await turn(notify);

    expect(receiver.received.map((r) => r.headers['x-ops-console-event'])).toEqual(['op-1:failed:1', 'op-1:failed:1', 'op-1:failed:1']);
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([{ state: 'delivered', attempts: 3, lastStatus: 204, nextAttemptAt: null }]);
  });

  it('does not retry a 4xx other than 429', async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    await notify.tick();
    receiver.answerWith(() => ({ status: 410, body: 'gone' }));
    await fail('op-1');
    await turn(notify);
    clock += 3_600_000;
    await turn(notify);

    expect(receiver.received).toHaveLength(1);
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([{ state: 'failed', attempts: 1, lastStatus: 410 }]);
  });

  it('pauses a webhook after 20 failures in a row and says so; Resume sends what waited', async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    await notify.tick();
    receiver.answerWith(() => ({ status: 500 }));
    await fail('op-1');
    for (let i = 0; i < 25; i += 1) {
      await turn(notify);
      clock += 3_600_000;
    }
    expect(receiver.received).toHaveLength(20);
    expect(await notify.list(owner)).toMatchObject([{ state: 'paused', pausedReason: 'Paused after 20 failed deliveries in a row.', consecutiveFailures: 20 }]);

    receiver.answerWith(() => ({ status: 200 }));
    expect(await notify.resume(owner, webhook.id)).toBe(true);
    await turn(notify);
    expect(receiver.received).toHaveLength(21);
    expect(await notify.list(owner)).toMatchObject([{ state: 'active', consecutiveFailures: 0 }]);
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

    expect(receiver.received.map((r) => r.headers['x-ops-console-event'])).toEqual(['op-1:failed:1']);
    expect((await notify.deliveries(owner, webhook.id))?.map((d) => d.eventId)).toEqual(['op-1:failed:1']);
  });

  it('"Notify me when it ends" sends the end of a watched operation to every webhook of the person who asked', async () => {
    const notify = service();
    await addWebhook(notify, { events: ['operation.failed'] });
    await notify.tick();
    expect(await notify.watch(owner, 'p2', 'op-7')).toMatchObject({ projectId: 'p2', operationId: 'op-7', webhooks: 1 });
    clock += 1000;
    await recordTransition(db, { projectId: 'p2', operation: { id: 'op-7', status: 'finished' }, previousStatus: 'running', seenAt: new Date(clock) });
    await recordTransition(db, { projectId: 'p2', operation: { id: 'op-8', status: 'finished' }, previousStatus: 'running', seenAt: new Date(clock) });
    await turn(notify);

    expect(receiver.received.map((r) => JSON.parse(r.body) as { type: string; id: string })).toMatchObject([{ type: 'operation.finished', id: 'op-7:finished' }]);
  });

  it('a receiver that never answers holds up only its own webhook', async () => {
    const notify = service();
    const slow = await startReceiver(() => 'hang');
    try {
      await addWebhook(notify, { url: slow.url });
      await addWebhook(notify);
      await notify.tick();
      await fail('op-1');
      await notify.tick();
      await Promise.all([slow.until(1), receiver.until(1)]);
      clock += 1000;
      await fail('op-2');
      // The quick webhook's first answer may still be being recorded: turn until its second event is out.
      while (receiver.received.length < 2) {
        await notify.tick();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }

      expect(slow.received).toHaveLength(1);
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
      const created = new Date(clock - 3_600_000 + i * 60_000).toISOString();
      await recordTransition(db, { projectId: 'p1', operation: { id: `ended-${i}`, status, created_at: created, total_duration_ms: 10_000 }, previousStatus: 'running', seenAt: new Date(clock) });
    }
    return notify;
  }

  /** Started 25 s ago with `status`. */
  const startedAgo = (id: string, status: string) =>
    recordTransition(db, { projectId: 'p1', operation: { id, status, created_at: new Date(clock - 25_000).toISOString() }, previousStatus: 'scheduling', seenAt: new Date(clock) });

  /** Two minutes of the loop's turns: 25 s in becomes 146 s, past twice the p95 and past 30 s. */
  async function twoMinutes(notify: Notifications): Promise<string[]> {
    for (let minute = 0; minute < 2; minute += 1) {
      clock += 60_500;
      await turn(notify);
    }
    return receiver.received.map((r) => (JSON.parse(r.body) as { id: string; type: string }).id);
  }

  it('raises "longer than usual" once for an operation in flight past twice its action\'s p95 and past 30 s', async () => {
    const notify = await usualAt10s(['finished', 'finished', 'finished', 'finished', 'finished']);
    await startedAgo('slow', 'running');
    clock += 1_000;
    await turn(notify);
    expect(receiver.received).toHaveLength(0);

    expect(await twoMinutes(notify)).toEqual(['slow:longer_than_usual']);
  });

  it('raises "longer than usual" for an operation of a status the console does not know (in flight, as a page counts it), not for a failure awaiting its retry', async () => {
    const notify = await usualAt10s(['finished', 'finished', 'finished', 'finished', 'finished']);
    await startedAgo('slow-unknown', 'paused_by_platform');
    await fail('slow-failed', 'p1', { created_at: new Date(clock - 25_000).toISOString(), retry_at: new Date(clock + 3_600_000).toISOString() });

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
    receiver.answerWith(() => ({ status: 200, body: 'ok from slack' }));

    expect(await notify.test(owner, webhook.id)).toEqual({ delivered: true, status: 200, answer: 'ok from slack' });
    const [request] = receiver.received;
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ text: expect.stringContaining('Test project') as string, blocks: expect.any(Array) as unknown[] });
    expect(verifySignature(secret, request?.body ?? '', String(request?.headers['x-ops-console-signature']), clock)).toBe(true);
    expect(await notify.test({ ...owner, fingerprint: 'someone-else' }, webhook.id)).toBeNull();
  });

  it('refuses a private address unless WEBHOOK_ALLOW_PRIVATE is set', async () => {
    const strict = createNotifications({ db, seal, access: createProjectAccess(createApiReader(fakeApi)), send: sendWebhook, publicUrl: new URL('http://x/'), allowPrivate: false });
    expect(await strict.create(owner, { url: receiver.url, format: 'json', scope: { kind: 'all' }, events: ['operation.failed'] })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/loopback, private/) as string,
    });
  });
});
