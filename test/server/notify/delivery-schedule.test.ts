import { describe, expect, it } from 'vitest';
import { PARALLEL_PER_WEBHOOK } from '../../../server/notify/backoff';
import { DISABLED_GONE_REASON, PAUSED_FAILING_REASON } from '../../../server/notify/delivery-worker';
import { DRIVERS } from '../store/store-drivers';
import { owner, T0, useHarness } from './outbox-harness';

// Deliveries that outlast a bad minute (docs/notifications.md, "Delivery and retries"), on the loop's simulated
// clock: each event's own schedule, pausing only after days of failure, a backlog drained a few at a time, 410,
// Resume and Redeliver.

const SECOND = 1_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The two tests of many turns: a few seconds on PGlite, more on a loaded machine. */
const MANY_TURNS = { timeout: 30_000 };

describe.each(DRIVERS)('delivery schedule on %s', (driver) => {
  const h = useHarness(driver);
  const { service, addWebhook, fail, turn } = h;

  const ids = (received = h.receiver.received) => received.map((r) => String(r.headers['webhook-id']));

  it('a receiver down for two minutes under a steady stream gets every event once it is back, with no Resume', MANY_TURNS, async () => {
    const notify = service();
    await addWebhook(notify);
    let up = true;
    const delivered = new Set<string>();
    h.receiver.answerWith((request) => {
      if (!up) return { status: 503, body: 'down' };
      delivered.add(String(request.headers['webhook-id']));
      return { status: 204 };
    });
    const sent: string[] = [];
    // One event every 5 s for three minutes; the receiver is down from the 30th second to the 150th.
    for (let i = 0; i < 36; i += 1) {
      h.clock += 5 * SECOND;
      up = h.clock - T0 <= 30 * SECOND || h.clock - T0 > 150 * SECOND;
      await fail(`op-${i}`);
      sent.push(`op-${i}:failed:1`);
      await turn(notify);
    }
    // The loop goes on turning, for ten more minutes at most.
    for (let s = 0; s < 120 && delivered.size < sent.length; s += 1) {
      h.clock += 5 * SECOND;
      await turn(notify);
    }

    const deliveries = (await notify.deliveries(owner, (await notify.list(owner))[0]?.id ?? '')) ?? [];
    expect(deliveries.filter((d) => d.state !== 'delivered').map((d) => d.eventId)).toEqual([]);
    expect(delivered).toEqual(new Set(sent));
    expect(await notify.list(owner)).toMatchObject([{ state: 'active', pausedReason: null, failingSince: null }]);
  });

  it('drains a backlog a few at a time, each lane going on as soon as its answer is in, without waiting for the next tick', async () => {
    const notify = service();
    await addWebhook(notify);
    for (let i = 0; i < 10; i += 1) await fail(`op-${i}`);
    h.receiver.answerWith(() => 'hold');

    await notify.tick();
    await h.receiver.until(PARALLEL_PER_WEBHOOK);
    const leased = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM notify_deliveries WHERE lease_until > $1', [new Date(h.clock)]);
    expect(leased.rows[0]?.n).toBe(PARALLEL_PER_WEBHOOK);
    expect(h.receiver.held).toHaveLength(PARALLEL_PER_WEBHOOK);

    h.receiver.answerWith(() => ({ status: 200 }));
    h.receiver.release();
    await notify.settle();
    expect(new Set(ids())).toEqual(new Set(Array.from({ length: 10 }, (_, i) => `op-${i}:failed:1`)));
  });

  it(
    'pauses a webhook only once every delivery has failed for 5 days, however many attempts; Resume sends what waited and what failed in the last 3 days',
    MANY_TURNS,
    async () => {
      const notify = service();
      const { webhook } = await addWebhook(notify);
      h.receiver.answerWith(() => ({ status: 500, body: 'broken' }));
      await fail('op-first');
      await turn(notify);
      // Two and a half days on, an event whose schedule runs out (eight attempts over about 27.5 hours) and fails for good.
      h.clock = T0 + 2.5 * DAY;
      await fail('op-later');
      for (const wait of [0, 5 * SECOND, 5 * 60 * SECOND, 0.5 * HOUR, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]) {
        h.clock += wait;
        await turn(notify);
      }
      // Nearly 5 days after the first failure, many more failures at once: still not paused.
      h.clock = T0 + 5 * DAY - HOUR;
      for (let i = 0; i < 30; i += 1) await fail(`op-burst-${i}`);
      await turn(notify);
      const [failing] = await notify.list(owner);
      expect(failing).toMatchObject({ state: 'active', failingSince: new Date(T0).toISOString() });
      expect(failing?.consecutiveFailures).toBeGreaterThan(30);

      h.clock = T0 + 5 * DAY;
      await fail('op-5d');
      await turn(notify);
      expect(await notify.list(owner)).toMatchObject([{ state: 'paused', pausedReason: PAUSED_FAILING_REASON }]);
      const before = h.receiver.received.length;
      h.clock += HOUR;
      await turn(notify);
      expect(h.receiver.received).toHaveLength(before);

      h.receiver.answerWith(() => ({ status: 200 }));
      expect(await notify.resume(owner, webhook.id)).toBe(true);
      await turn(notify);
      const resent = ids(h.receiver.received.slice(before));
      // What waited and what failed in the last 3 days (op-later), each once; not the first event, failed for good 4 days ago.
      const expected = ['op-later', ...Array.from({ length: 30 }, (_, i) => `op-burst-${i}`), 'op-5d'].map((id) => `${id}:failed:1`);
      expect(resent.toSorted()).toEqual(expected.toSorted());
      expect(await notify.list(owner)).toMatchObject([{ state: 'active', consecutiveFailures: 0, failingSince: null }]);
    },
  );

  it('a 410 disables the webhook and says why; nothing more is sent until Resume, which sends that event again with those that waited', async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    h.receiver.answerWith(() => ({ status: 410, body: 'gone' }));
    await fail('op-1');
    await turn(notify);
    expect(await notify.list(owner)).toMatchObject([{ state: 'paused', pausedReason: DISABLED_GONE_REASON }]);

    h.clock += 1_000;
    await fail('op-2');
    h.clock += HOUR;
    await turn(notify);
    expect(ids()).toEqual(['op-1:failed:1']);

    h.receiver.answerWith(() => ({ status: 200 }));
    await notify.resume(owner, webhook.id);
    await turn(notify);
    expect(new Set(ids().slice(1))).toEqual(new Set(['op-1:failed:1', 'op-2:failed:1']));
    expect((await notify.deliveries(owner, webhook.id))?.map((d) => [d.eventId, d.state])).toEqual([
      ['op-2:failed:1', 'delivered'],
      ['op-1:failed:1', 'delivered'],
    ]);
  });

  it('"Redeliver" sends an event of the last 3 days again, delivered or not, and refuses an older one', async () => {
    const notify = service();
    const { webhook } = await addWebhook(notify);
    await fail('op-old');
    await turn(notify);
    h.clock += 2 * DAY;
    h.receiver.answerWith(() => ({ status: 404, body: 'no such route' }));
    await fail('op-new');
    await turn(notify);
    h.clock += 1.5 * DAY;
    expect((await notify.deliveries(owner, webhook.id))?.map((d) => [d.eventId, d.state, d.redeliverable])).toEqual([
      ['op-new:failed:1', 'failed', true],
      ['op-old:failed:1', 'delivered', false],
    ]);

    h.receiver.answerWith(() => ({ status: 200 }));
    expect(await notify.redeliver(owner, webhook.id, 'op-new:failed:1')).toBe('queued');
    expect(await notify.redeliver(owner, webhook.id, 'op-old:failed:1')).toBe('too-old');
    expect(await notify.redeliver(owner, webhook.id, 'op-none')).toBe('not-found');
    expect(await notify.redeliver({ ...owner, fingerprint: 'someone-else' }, webhook.id, 'op-new:failed:1')).toBeNull();
    await turn(notify);

    expect(ids()).toEqual(['op-old:failed:1', 'op-new:failed:1', 'op-new:failed:1']);
    expect(await notify.deliveries(owner, webhook.id)).toMatchObject([
      { eventId: 'op-new:failed:1', state: 'delivered', attempts: 2, lastStatus: 200 },
      { eventId: 'op-old:failed:1' },
    ]);
  });
});
