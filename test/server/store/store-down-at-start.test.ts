import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_UNAVAILABLE_CODE } from '../../../server/store/db';
import { STORE_RETRY_MS } from '../../../server/store/store';
import { ownPostgres, type OwnPostgres } from '../../support/postgres-server';
import { signIn, signOut, startChildServer, waitFor, type ChildServer } from './child-server';

// "An instance started with its Postgres down serves sign-in and live pages" (server/store/store.ts): sign-in,
// the API and pages do not need the store, so they work from the first request; what does need it answers 503
// naming the store; /readyz answers 200 with its store check "degraded" (every instance shares the store: taking
// this one out fixes nothing), the cause to this machine only; a sign-out made meanwhile holds on the instance at once; and once
// Postgres is up the store opens by itself within its retry interval (no request has to ask), the sign-out is
// written to it and /readyz's store check says "ok". Then Postgres goes away under the running instance, and comes
// back (docs/operations.md): /readyz's check follows within seconds, and the answer stays 200, and the log says each failure once, with a count at its end.

/** The store's own open once Postgres answers: connecting and applying the migrations to an empty database. */
const OPEN_MS = 3_000;
/** How soon /readyz's store check must notice Postgres gone, or back (its deadline is 1.5 s). */
const READY_WITHIN_MS = 5_000;

interface ReadyBody {
  status: string;
  checks: { store: { status: string; migration?: number; detail?: string }; collector: { status: string }; outbox: { status: string } };
}

/** The child's JSON log lines (its banner is plain text around them). */
function logLines(output: string): { level: string; event?: string; msg: string; failures?: number; channel?: string }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; event?: string; msg: string; failures?: number; channel?: string });
}

async function revocationsInStore(url: string): Promise<{ reason: string }[] | undefined> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // Not migrated yet: the server has not opened its store.
    if ((await client.query<{ table: string | null }>("SELECT to_regclass('revoked_sessions')::text AS table")).rows[0]?.table == null) return undefined;
    return (await client.query<{ reason: string }>('SELECT reason FROM revoked_sessions')).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('an instance started with its Postgres down', () => {
  let cluster: OwnPostgres;
  let server: ChildServer;
  // What beforeAll made, undone in reverse whatever failed.
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    cluster = await ownPostgres();
    cleanups.push(() => cluster.remove());
    await cluster.stop('fast');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'ops-console-down-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    server = await startChildServer({ DATABASE_URL: cluster.url, DATA_DIR: dataDir });
    cleanups.push(() => server.kill());
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const readyz = async () => {
    const answer = await server.request({ path: '/readyz' });
    return { status: answer.status, body: JSON.parse(answer.body) as ReadyBody };
  };

  it(
    'serves sign-in, the API and pages, refuses a signed-out cookie at once, and writes that sign-out once the store opens by itself',
    { timeout: 60_000 },
    async ({ annotate }) => {
      expect((await server.request({ path: '/healthz' })).status).toBe(200);
      const down = await readyz();
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({
        status: 'degraded',
        checks: { store: { status: 'degraded' }, collector: { status: 'waiting for the store' }, outbox: { status: 'unknown' } },
      });
      // This machine reads the cause, with the real error text; a client that came through a proxy reads the statuses only.
      expect(down.body.checks.store.detail).toMatch(/Postgres at .*\/console\) is unavailable: .*ECONNREFUSED|connect/);
      const outside = await server.request({ path: '/readyz', headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(outside.status).toBe(200);
      expect(JSON.parse(outside.body)).toEqual({
        status: 'degraded',
        checks: { store: { status: 'degraded' }, collector: { status: 'waiting for the store' }, outbox: { status: 'unknown' } },
      });
      const cookie = await signIn(server);
      const projects = await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie, accept: 'application/json' } });
      expect(projects.status, projects.body).toBe(200);
      expect((JSON.parse(projects.body) as { projects: unknown[] }).projects).toHaveLength(1);
      const page = await server.request({ path: '/', headers: { cookie, accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<div id="root">');

      const archive = await server.request({ path: '/archive/sources', headers: { cookie, accept: 'application/json' } });
      expect(archive.status).toBe(503);
      const refusal = JSON.parse(archive.body) as { code: string; message: string };
      expect(refusal.code).toBe(STORE_UNAVAILABLE_CODE);
      expect(refusal.message).toContain(`The console's store (Postgres at ${new URL(cluster.url).host}/console) is unavailable`);
      expect(refusal.message).not.toMatch(/\bAPI\b/);
      // The insights count from the store: their answer says it is the store that failed, in the words the page shows.
      const insights = await server.request({ path: '/archive/insights', headers: { cookie, accept: 'application/json' } });
      expect(insights.status).toBe(503);
      expect(JSON.parse(insights.body)).toMatchObject({ code: STORE_UNAVAILABLE_CODE, message: refusal.message });

      const signedOut = await signIn(server);
      expect(await signOut(server, signedOut)).toBe(200);
      expect((await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie: signedOut } })).status).toBe(401);
      expect(server.output()).toContain('sign-outs hold on this instance and are written when the store answers');

      await cluster.start();
      const started = performance.now();
      // Nothing asks the store meanwhile: it opens on its own retry, and writes what waited.
      const written = await waitFor(
        'the store to open and write the sign-out',
        async () => {
          const rows = await revocationsInStore(cluster.url);
          return rows?.length ? rows : undefined;
        },
        STORE_RETRY_MS + OPEN_MS,
      );
      const openedMs = Math.round(performance.now() - started);

      expect(written).toEqual([{ reason: 'signed-out' }]);
      const archived = await server.request({ path: '/archive/sources', headers: { cookie, accept: 'application/json' } });
      expect(archived.status, archived.body).toBe(200);
      expect(JSON.parse(archived.body)).toEqual({ sources: [] });
      expect((await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie: signedOut } })).status).toBe(401);
      expect(server.child.exitCode).toBeNull();
      expect(await readyz()).toMatchObject({
        status: 200,
        body: { status: 'ready', checks: { store: { status: 'ok', migration: expect.any(Number) as number } } },
      });
      await annotate(`store opened ${openedMs} ms after Postgres started (retry every ${STORE_RETRY_MS} ms), the sign-out made while it was down written then`);
    },
  );

  // After the first test, on its server and cluster (Vitest runs a file's tests in order): Postgres goes away under the running instance.
  it(
    'says "degraded" in /readyz within seconds, with 200 throughout, "ok" once Postgres is back, and logs each failure once with a count when it ends',
    { timeout: 60_000 },
    async ({ annotate }) => {
      const ready = () => server.request({ path: '/readyz' });
      const storeStatus = async () => {
        const answer = await ready();
        expect(answer.status).toBe(200);
        return (JSON.parse(answer.body) as ReadyBody).checks.store.status;
      };
      expect(await storeStatus()).toBe('ok');
      const before = logLines(server.output()).length;

      await cluster.stop('fast');
      const stopped = performance.now();
      await waitFor('/readyz to say the store is degraded', async () => ((await storeStatus()) === 'degraded' ? true : undefined), READY_WITHIN_MS);
      const noticedMs = Math.round(performance.now() - stopped);
      // Asked again and again while it is down (as a balancer does): each is a failure of the store, none a new line.
      for (let i = 0; i < 5; i++) expect(await storeStatus()).toBe('degraded');

      await cluster.start();
      const started = performance.now();
      await waitFor('/readyz to say the store is ok', async () => ((await storeStatus()) === 'ok' ? true : undefined), READY_WITHIN_MS);
      const backMs = Math.round(performance.now() - started);
      await waitFor(
        'the outage to be logged as over',
        () => Promise.resolve(logLines(server.output()).some((line) => line.event === 'store.unavailable.over') ? true : undefined),
        READY_WITHIN_MS,
      );

      const during = logLines(server.output()).slice(before);
      expect(during.filter((line) => line.event === 'store.unavailable')).toHaveLength(1);
      const over = during.filter((line) => line.event === 'store.unavailable.over');
      expect(over).toEqual([
        expect.objectContaining({
          level: 'info',
          msg: expect.stringMatching(/^Store: Postgres at .* answers again after \d+ s \(\d+ failed tries\)$/) as string,
        }),
      ]);
      expect(over[0]!.failures).toBeGreaterThanOrEqual(6);
      // Nothing that failed over and over (the sign-outs' reads, the collector's lock, listening on each channel: the
      // sign-outs' and the live feed's) said so more than once.
      const failures = during
        .filter((line) => line.event !== 'request' && (line.level === 'warn' || line.level === 'error'))
        .map((line) => (line.channel === undefined ? String(line.event) : `${String(line.event)} (${line.channel})`));
      expect(failures.length).toBeGreaterThan(0);
      expect(failures).toEqual([...new Set(failures)]);
      expect(server.child.exitCode).toBeNull();
      await annotate(
        `/readyz said "degraded" (200) ${noticedMs} ms after Postgres stopped and "ok" ${backMs} ms after it started; ${over[0]!.failures} store failures in one line and its end: ${failures.join(', ')}`,
      );
    },
  );
});
