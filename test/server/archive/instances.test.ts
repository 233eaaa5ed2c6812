import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchivedOperationsPageSchema } from '../../../src/api/archive-schemas';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { postgresDatabase } from '../store/store-drivers';
import { pgliteDataDir } from '../../support/pglite-template';
import { startReceiver } from '../notify/loopback-receiver';
import { apiJson, apiOperations, asPage, KEY, projectsByName, signIn, waitFollowing } from './archive-support';

// Several instances and restarts: on one DATABASE_URL exactly one collects and another takes over when it
// stops, and a sign-out through one holds on the other; on PGlite the archive outlives a restart.

const SECRET = randomBytes(32).toString('base64url');
const ARCHIVE_ENV = { SIM_API_KEY: KEY, SESSION_SECRET: SECRET, ARCHIVE_BUDGET: '700', ARCHIVE_LOCK_RETRY_MS: '100', ARCHIVE_INTERVAL_MS: '200' };

afterAll(() => removeTestClientDir());

describe('two instances on one DATABASE_URL', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('collect with one of them at a time, and the other takes over once it stops', async () => {
    const url = await postgresDatabase();
    const [a, b] = await Promise.all([startTestServer({ ...ARCHIVE_ENV, DATABASE_URL: url }), startTestServer({ ...ARCHIVE_ENV, DATABASE_URL: url })]);
    servers.push(a, b);
    await expect.poll(() => [a, b].filter((s) => s.running.leader.isLeading()).length, { timeout: 10_000, interval: 50 }).toBe(1);
    const holder = a.running.leader.isLeading() ? a : b;
    const other = holder === a ? b : a;
    // Each instance has its own simulated world: the source is kept through the collector's, so its key works there.
    const cookie = await signIn(holder);
    expect((await asPage(holder, cookie, '/archive/sources', 'POST')).status).toBe(201);
    await waitFollowing(holder, cookie);
    expect(other.running.leader.isLeading()).toBe(false);

    // A sign-out through one instance is refused by the other (the same cookie, the same secret).
    const signedIn = await signIn(other);
    expect((await asPage(holder, signedIn, '/archive/sources')).status).toBe(200);
    const signOut = await other.request({ method: 'POST', path: '/session/sign-out', headers: { cookie: signedIn, origin: `http://127.0.0.1:${other.port}` } });
    expect(signOut.status).toBe(200);
    await expect.poll(async () => (await asPage(holder, signedIn, '/archive/sources')).status, { timeout: 10_000, interval: 50 }).toBe(401);

    servers.splice(servers.indexOf(holder), 1);
    await holder.stop();
    await expect.poll(() => other.running.leader.isLeading(), { timeout: 10_000, interval: 50 }).toBe(true);
    expect(other.running.leader.collectorRequests()).toBeGreaterThanOrEqual(0);
  }, 120_000);
});

/** The API drops these operations from its list of the project (as the platform's retention does). */
async function dropFromApi(server: TestServer, projectId: string, ids: readonly string[]): Promise<void> {
  const rules = [{ path: `/projects/${projectId}/operations`, fault: { type: 'hide-operations', ids } }];
  const response = await server.request({
    method: 'PUT',
    path: '/__sim/faults',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  expect(response.status, response.body).toBe(200);
}

/** A project's unfiltered history as the page puts it together: the API's list, then what the archive kept past its end. */
async function wholeRecord(server: TestServer, cookie: string, projectId: string): Promise<{ ids: string[]; kept: number }> {
  const listed = await apiOperations(server, projectId);
  const ids = listed.map((op) => op.id);
  let kept = 0;
  let cursor: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ after: listed.at(-1)?.id ?? '', limit: '1000', ...(cursor ? { cursor } : {}) });
    const page = ArchivedOperationsPageSchema.parse(JSON.parse((await asPage(server, cookie, `/archive/projects/${projectId}/operations?${query}`)).body));
    ids.push(...page.operations.map((op) => op.id));
    kept += page.operations.filter((op) => op.keptSince !== undefined).length;
    if (page.operations.length < 1000 || !page.pagination) return { ids, kept };
    cursor = page.pagination.cursor;
  }
}

describe('PGlite across a restart', () => {
  it('still holds the archive (the record past the API’s end in the API’s order), its kept key and its sign-outs, and the collector resumes', async () => {
    const dataDir = await pgliteDataDir();
    const first = await startTestServer({ ...ARCHIVE_ENV, SIM_FAULTS: '1', DATA_DIR: dataDir });
    const cookie = await signIn(first);
    expect((await asPage(first, cookie, '/archive/sources', 'POST')).status).toBe(201);
    await waitFollowing(first, cookie);
    const big = (await projectsByName(first)).get('acme-analytics-prod')?.id ?? '';
    const before = ArchivedOperationsPageSchema.parse(
      JSON.parse((await asPage(first, cookie, `/archive/projects/${big}/operations?status=failed,error`)).body),
    );
    const beforeIds = new Set(before.operations.map((op) => op.id));
    // The API drops the 300 oldest after the archive read them: the record goes on past its end, in its order.
    const platform = (await apiOperations(first, big)).map((op) => op.id);
    const dropped = platform.slice(-300);
    await dropFromApi(first, big, dropped);
    expect(await wholeRecord(first, cookie, big)).toEqual({ ids: platform, kept: 300 });
    const signedOut = await signIn(first);
    await first.request({ method: 'POST', path: '/session/sign-out', headers: { cookie: signedOut, origin: `http://127.0.0.1:${first.port}` } });
    await first.stop();

    const second = await startTestServer({ ...ARCHIVE_ENV, SIM_FAULTS: '1', DATA_DIR: dataDir });
    try {
      // The kept store opens in the background at start (docs/architecture.md, "The store"); the collector resumes once it has.
      await second.running.store.atStart;
      await expect.poll(() => second.running.leader.isLeading(), { timeout: 15_000 }).toBe(true);
      // The same world again (its seed), but what happened in it since start is new: the API's list as it is now.
      const platformNow = (await apiOperations(second, big)).map((op) => op.id);
      expect(platformNow.slice(-300)).toEqual(dropped);
      await dropFromApi(second, big, dropped);
      expect(await wholeRecord(second, cookie, big)).toEqual({ ids: platformNow, kept: 300 });
      const after = ArchivedOperationsPageSchema.parse(
        JSON.parse((await asPage(second, cookie, `/archive/projects/${big}/operations?status=failed,error`)).body),
      );
      // Every failure kept before the restart, in the same order; the new world may have failed more since it started
      // (on a busy machine its first minute saw 18 more).
      const afterIds = after.operations.map((op) => op.id);
      expect(afterIds.filter((id) => beforeIds.has(id))).toEqual(before.operations.map((op) => op.id));
      expect((await asPage(second, signedOut, '/archive/sources')).status).toBe(401);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe('notifications with two instances on one DATABASE_URL', () => {
  it('delivers each event once, the webhook made on the instance that does not collect', async () => {
    const receiver = await startReceiver();
    const url = await postgresDatabase();
    const env = { ...ARCHIVE_ENV, DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE: '1' };
    const [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
    try {
      await expect.poll(() => [a, b].filter((s) => s.running.leader.isLeading()).length, { timeout: 10_000, interval: 50 }).toBe(1);
      const holder = a.running.leader.isLeading() ? a : b;
      const other = holder === a ? b : a;
      const cookie = await signIn(holder);
      expect((await asPage(holder, cookie, '/archive/sources', 'POST')).status).toBe(201);
      await waitFollowing(holder, cookie);
      // The webhook is made through the instance that does not collect: the store is the one both share.
      const made = await other.request({
        method: 'POST',
        path: '/notifications/webhooks',
        headers: { cookie, accept: 'application/json', 'content-type': 'application/json', origin: `http://127.0.0.1:${other.port}` },
        body: JSON.stringify({ url: receiver.url, format: 'json', scope: { kind: 'all' }, events: ['operation.finished'] }),
      });
      expect(made.status, made.body).toBe(201);

      // Work in the collector's world: three branches, each with operations that finish within seconds.
      const project = (await projectsByName(holder)).get('scratchpad')?.id ?? '';
      const started: string[] = [];
      for (let i = 0; i < 3; i++) {
        const created = (await apiJson(holder, `/projects/${project}/branches`, KEY, 'POST', {})) as { operations: { id: string }[] };
        started.push(...created.operations.map((op) => op.id));
        await expect
          .poll(async () => (await apiOperations(holder, project)).filter((op) => started.includes(op.id) && op.status !== 'finished').length, {
            timeout: 20_000,
            interval: 100,
          })
          .toBe(0);
      }
      const finishedEvents = () =>
        receiver.received.map((r) => JSON.parse(r.body) as { id: string; operation: { id: string } }).filter((e) => started.includes(e.operation.id));
      await expect.poll(() => new Set(finishedEvents().map((e) => e.operation.id)).size, { timeout: 30_000, interval: 100 }).toBe(started.length);
      // wall-clock: both loops run every second or so; a second copy of any event would come within these rounds.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const ids = finishedEvents().map((e) => e.id);
      expect(ids).toHaveLength(started.length);
      expect(new Set(ids).size).toBe(started.length);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await receiver.close();
    }
  }, 120_000);
});
