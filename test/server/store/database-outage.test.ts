import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_APPLICATION_NAME } from '../../../server/store/lock-connection';
import { COLLECTOR_LOCK } from '../../../server/store/locks';
import { childScript } from '../../support/child-scripts';
import { ownPostgres, type OwnPostgres } from '../../support/postgres-server';
import { startReceiver } from '../notify/loopback-receiver';
import { startApiTally, type Read } from './api-tally';
import { CHILD_KEY, keepHistory, signIn, signOut, startChildServer, waitFor, watchHealth, type ChildServer } from './child-server';
import { startPgRelay, type PgRelay } from './pg-relay';

// The database goes away under two instances (docs/deploying.md, "When the database goes away"), each a child
// process on its own relay to a Postgres of the test's own, both reading one simulated world (the simulator in a
// process of its own, as several instances' primary serves it) through relays that note the collector's reads.
// Postgres stopped for 25 s: readiness follows on both, sign-in's pages and the API do not, a sign-out made
// meanwhile holds everywhere, and what failed meanwhile is delivered once. Then the collector's lock connection
// is killed, and black-holed: the old holder stops reading before the new one starts, and no event is doubled or lost.

const OUTAGE_MS = 25_000;

type Name = 'a' | 'b';

interface Instance {
  name: Name;
  server: ChildServer;
  relay: PgRelay;
}

interface ReadyBody {
  status: string;
  checks: { store: { status: string }; collector: { status: string }; outbox: { status: string; pending?: number } };
}

interface Event {
  id: string;
  type: string;
  operation: { id: string; status: string };
}

let cluster: OwnPostgres;
let simulator: { child: ChildProcess; apiUrl: string; faultControl: string };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const instances: Instance[] = [];
const reads: Read[] = [];
let cookie = '';
let secret = '';
let projectId = '';
const cleanups: (() => Promise<unknown>)[] = [];

async function startSimulator(): Promise<typeof simulator> {
  const child = spawn(process.execPath, [await childScript('simulator-server')], {
    env: { ...process.env, SIM_API_KEY: CHILD_KEY, SIM_FAULTS: '1', API_URL: '', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(async () => {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  });
  let output = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = output.split('\n').find((text) => text.startsWith('{'));
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}): ${output}`)));
  });
  const addresses = JSON.parse(line) as { apiUrl: string; faultControl: string };
  return { child, ...addresses };
}

async function setFaults(rules: unknown[]): Promise<void> {
  const answer = await fetch(simulator.faultControl, {
    method: rules.length ? 'PUT' : 'DELETE',
    headers: { 'content-type': 'application/json' },
    ...(rules.length ? { body: JSON.stringify({ rules }) } : {}),
  });
  expect(answer.status, await answer.text()).toBe(200);
}

/** The test's own look at the store (it owns the Postgres). */
async function inStore<R>(sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R & pg.QueryResultRow>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function asPage(instance: Instance, cookieValue: string, target: string, method = 'GET', body?: unknown) {
  return instance.server.request({
    method,
    path: target,
    headers: {
      cookie: cookieValue,
      accept: 'application/json',
      origin: instance.server.origin,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function readyz(instance: Instance): Promise<{ status: number; body: ReadyBody }> {
  const answer = await instance.server.request({ path: '/readyz' });
  return { status: answer.status, body: JSON.parse(answer.body) as ReadyBody };
}

/** The instance that collects now, once exactly one does. */
async function collecting(): Promise<Instance> {
  return waitFor(
    'one instance to collect',
    async () => {
      const states = await Promise.all(
        instances.map(async (instance) => ((await readyz(instance)).body.checks.collector.status === 'collecting' ? instance : undefined)),
      );
      const holders = states.filter((instance) => instance !== undefined);
      return holders.length === 1 ? holders[0] : undefined;
    },
    30_000,
  );
}

/** Starts a branch in the project: its operations, held in flight by the simulator until `release`. */
async function startWork(instance: Instance): Promise<string[]> {
  const created = await asPage(instance, cookie, `/api/v2/projects/${projectId}/branches`, 'POST', {});
  expect(created.status, created.body).toBe(201);
  const ids = (JSON.parse(created.body) as { operations: { id: string }[] }).operations.map((op) => op.id);
  await setFaults([{ path: `/projects/${projectId}/**`, fault: { type: 'unknown-values', status: 'running', ids } }]);
  // Seen in flight by the collector (so what comes next is a change it must notice).
  await waitFor(
    'the operations to be archived in flight',
    async () =>
      (await inStore<{ n: number }>("SELECT count(*)::int AS n FROM operations WHERE id = ANY($1) AND status = 'running'", [ids]))[0]?.n === ids.length
        ? true
        : undefined,
    30_000,
  );
  return ids;
}

/** Waits until every transition is dispatched and no delivery waits: nothing more will be sent. */
async function settled(): Promise<void> {
  await waitFor(
    'every transition dispatched and every delivery made',
    async () => {
      const [row] = await inStore<{ undispatched: number; pending: number }>(
        "SELECT (SELECT count(*)::int FROM operation_transitions WHERE dispatched_at IS NULL) AS undispatched, (SELECT count(*)::int FROM notify_deliveries WHERE state = 'pending') AS pending",
      );
      return row?.undispatched === 0 && row.pending === 0 ? true : undefined;
    },
    30_000,
  );
}

const events = () => receiver.received.map((request) => ({ request, event: JSON.parse(request.body) as Event }));

beforeAll(async () => {
  const [own, sim, hook, dataDir] = await Promise.all([ownPostgres(), startSimulator(), startReceiver(), mkdtemp(path.join(tmpdir(), 'ops-console-outage-'))]);
  [cluster, simulator, receiver] = [own, sim, hook];
  cleanups.push(
    () => cluster.remove(),
    () => receiver.close(),
    () => rm(dataDir, { recursive: true, force: true }),
  );
  // Both at once: each child's start is mostly tsx compiling the server.
  const started = await Promise.all(
    (['a', 'b'] as const).map(async (name) => {
      const relay = await startPgRelay(cluster.url);
      cleanups.push(() => relay.close());
      const tally = await startApiTally(simulator.apiUrl, name, reads);
      cleanups.push(() => tally.close());
      const server = await startChildServer({
        DATABASE_URL: relay.url,
        DATA_DIR: dataDir,
        API_URL: tally.apiUrl,
        OPS_CONSOLE_API_IS_SIMULATOR: '1',
        WEBHOOK_ALLOW_PRIVATE: '1',
        ARCHIVE_BUDGET: '700',
        ARCHIVE_LOCK_RETRY_MS: '500',
        ARCHIVE_INTERVAL_MS: '500',
      });
      cleanups.push(() => server.kill());
      return { name, server, relay };
    }),
  );
  instances.push(...started);
  const [a, b] = instances as [Instance, Instance];
  cookie = await signIn(a.server);
  expect((await keepHistory(a.server, cookie)).status).toBe(201);
  const made = await asPage(b, cookie, '/notifications/webhooks', 'POST', {
    url: receiver.url,
    format: 'json',
    scope: { kind: 'all' },
    events: ['operation.failed', 'operation.finished'],
  });
  expect(made.status, made.body).toBe(201);
  secret = (JSON.parse(made.body) as { secret: string }).secret;
  const projects = JSON.parse((await asPage(a, cookie, '/api/v2/projects?limit=100')).body) as { projects: { id: string; name: string }[] };
  projectId = projects.projects.find((project) => project.name === 'scratchpad')?.id ?? '';
  await waitFor(
    'the kept key to be followed',
    async () =>
      (JSON.parse((await asPage(a, cookie, '/archive/sources')).body) as { sources: { state: string }[] }).sources[0]?.state === 'following' ? true : undefined,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe('the database stopped for 25 s under two instances', () => {
  it(
    'turns /readyz\'s store check "degraded" (200) and back on both, keeps /healthz, pages and sign-outs, and delivers what failed meanwhile once, signed',
    { timeout: 120_000 },
    async ({ annotate }) => {
      const [a, b] = instances as [Instance, Instance];
      const [failing] = await startWork(a);
      const signedOut = await signIn(a.server);
      const health = instances.map((instance) => watchHealth(instance.server.port, 100));

      await cluster.stop('fast');
      const stoppedAt = performance.now();
      const notReady = await Promise.all(
        instances.map(async (instance) => {
          await waitFor(
            `/readyz of ${instance.name} to say the store is degraded`,
            async () => {
              const answer = await readyz(instance);
              expect(answer.status).toBe(200);
              return answer.body.checks.store.status === 'degraded' ? true : undefined;
            },
            10_000,
          );
          return Math.round(performance.now() - stoppedAt);
        }),
      );
      // Made while the store is down: holds on its instance at once.
      expect(await signOut(a.server, signedOut)).toBe(200);
      expect((await asPage(a, signedOut, '/api/v2/projects?limit=1')).status).toBe(401);
      for (const instance of instances) {
        expect((await asPage(instance, cookie, '/api/v2/projects?limit=1')).status).toBe(200);
        const page = await instance.server.request({ path: `/projects/${projectId}`, headers: { cookie, accept: 'text/html' } });
        expect(page.status).toBe(200);
        expect(page.body).toContain('<div id="root">');
      }
      // The platform fails the operation while nothing can record it.
      await setFaults([{ path: `/projects/${projectId}/**`, fault: { type: 'unknown-values', status: 'failed', ids: [failing] } }]);
      // wall-clock: the outage lasts its 25 s; /healthz is asked every 100 ms meanwhile.
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (performance.now() - stoppedAt)));

      await cluster.start();
      const startedAt = performance.now();
      const ready = await Promise.all(
        instances.map(async (instance) => {
          await waitFor(
            `/readyz of ${instance.name} to say the store is ok`,
            async () => ((await readyz(instance)).body.checks.store.status === 'ok' ? true : undefined),
            30_000,
          );
          return Math.round(performance.now() - startedAt);
        }),
      );
      await waitFor(
        'the other instance to refuse the signed-out cookie',
        async () => ((await asPage(b, signedOut, '/api/v2/projects?limit=1')).status === 401 ? true : undefined),
        10_000,
      );
      await waitFor(
        'the failure to be delivered',
        () => Promise.resolve(events().some(({ event }) => event.operation.id === failing) ? true : undefined),
        30_000,
      );
      const deliveredMs = Math.round(performance.now() - startedAt);
      await settled();
      const tallies = await Promise.all(health.map((watch) => watch.stop()));

      const delivered = events().filter(({ event }) => event.operation.id === failing);
      expect(delivered.map(({ event }) => event.type)).toEqual(['operation.failed']);
      const request = delivered[0]!.request;
      const header = (name: string) => String(request.headers[name]);
      expect(() =>
        new Webhook(secret).verify(request.body, {
          'webhook-id': header('webhook-id'),
          'webhook-timestamp': header('webhook-timestamp'),
          'webhook-signature': header('webhook-signature'),
        }),
      ).not.toThrow();
      for (const tally of tallies) expect([...tally.answers.keys()]).toEqual(['200']);
      await setFaults([]);
      await annotate(
        `/readyz "degraded" after ${notReady.join(' and ')} ms, "ok" after ${ready.join(' and ')} ms of Postgres back; the failure delivered ${deliveredMs} ms after; /healthz ${tallies.map((t) => `${t.polls} polls, slowest ${Math.round(t.slowestMs)} ms`).join('; ')}`,
      );
    },
  );
});

describe("the collector's lock connection lost", () => {
  const kills = {
    /** Postgres ends the session: the holder hears it at once. */
    terminated: async () => {
      const ended = await inStore<{ ended: boolean }>(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND granted",
        [COLLECTOR_LOCK],
      );
      expect(ended).toEqual([{ ended: true }]);
    },
    /** The socket goes silent: the holder hears nothing. */
    'black-holed': (holder: Instance) => {
      expect(holder.relay.blackHole(LOCK_APPLICATION_NAME)).toBe(1);
      return Promise.resolve();
    },
  };

  it.for(Object.keys(kills) as (keyof typeof kills)[])(
    '%s: collecting resumes on one instance, the old holder stops reading before the new one starts, every event once',
    { timeout: 60_000 },
    async (kind, { annotate }) => {
      const holder = await collecting();
      const ids = await startWork(holder);
      const lost = () =>
        holder.server
          .output()
          .split('\n')
          .filter((line) => line.includes('"event":"archive.lock_lost"')).length;
      const lostBefore = lost();
      await kills[kind](holder);
      const killedAt = performance.now();
      await waitFor('the holder to step down', () => Promise.resolve(lost() > lostBefore ? true : undefined), 10_000);
      const steppedDownMs = Math.round(performance.now() - killedAt);
      // The operations end while the lock changes hands.
      await setFaults([]);

      const next = await collecting();
      await waitFor(
        "every operation's end delivered",
        () =>
          Promise.resolve(ids.every((id) => events().some(({ event }) => event.operation.id === id && event.type === 'operation.finished')) ? true : undefined),
        30_000,
      );
      await settled();

      // The reads since the kill, in the order the simulator got them: one instance's, then (if it changed hands) the other's.
      const since = reads.filter((read) => read.at >= killedAt);
      const order = since.map((read) => read.instance).filter((name, i, all) => name !== all[i - 1]);
      expect(order.length, order.join(' ')).toBeLessThanOrEqual(2);
      if (order.length === 2) expect(order).toEqual([holder.name, next.name]);
      // Where the reading changed hands (or, taken again by the same instance, its longest pause).
      let handover = since.findIndex((read) => read.instance !== holder.name);
      if (handover === -1)
        for (let i = 1; i < since.length; i++)
          if (handover === -1 || since[i]!.at - since[i - 1]!.at > since[handover]!.at - since[handover - 1]!.at) handover = i;
      const firstNew = since[handover];
      const lastOld = reads.filter((read) => read.instance === holder.name && read.at < (firstNew?.at ?? Infinity)).at(-1);
      expect(since.some((read) => read.instance === next.name)).toBe(true);
      for (const id of ids)
        expect(
          events()
            .filter(({ event }) => event.operation.id === id)
            .map(({ event }) => event.type),
        ).toEqual(['operation.finished']);
      const ms = (read: Read | undefined) => (read ? `${Math.round(read.at - killedAt)} ms` : 'none');
      await annotate(
        `${kind}: the holder stepped down ${steppedDownMs} ms after the kill; old holder ${holder.name}'s last read ${ms(lastOld)} after the kill, new holder ${next.name}'s first ${ms(firstNew)}`,
      );
    },
  );
});
