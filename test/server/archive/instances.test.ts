import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchivedOperationsPageSchema } from '../../../src/api/archive-schemas';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { postgresDatabase } from '../store/store-drivers';
import { pgliteDataDir } from '../../support/pglite-template';
import { asPage, KEY, projectsByName, signIn, waitFollowing } from './archive-support';

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
    await expect.poll(() => [a, b].filter((s) => s.running.archive.isCollecting()).length, { timeout: 10_000, interval: 50 }).toBe(1);
    const holder = a.running.archive.isCollecting() ? a : b;
    const other = holder === a ? b : a;
    // Each instance has its own simulated world: the source is kept through the collector's, so its key works there.
    const cookie = await signIn(holder);
    expect((await asPage(holder, cookie, '/archive/sources', 'POST')).status).toBe(201);
    await waitFollowing(holder, cookie);
    expect(other.running.archive.isCollecting()).toBe(false);

    // A sign-out through one instance is refused by the other (the same cookie, the same secret).
    const signedIn = await signIn(other);
    expect((await asPage(holder, signedIn, '/archive/sources')).status).toBe(200);
    const signOut = await other.request({ method: 'POST', path: '/session/sign-out', headers: { cookie: signedIn, origin: `http://127.0.0.1:${other.port}` } });
    expect(signOut.status).toBe(200);
    await expect.poll(async () => (await asPage(holder, signedIn, '/archive/sources')).status, { timeout: 10_000, interval: 50 }).toBe(401);

    servers.splice(servers.indexOf(holder), 1);
    await holder.stop();
    await expect.poll(() => other.running.archive.isCollecting(), { timeout: 10_000, interval: 50 }).toBe(true);
    expect(other.running.archive.collectorRequests()).toBeGreaterThanOrEqual(0);
  }, 120_000);
});

describe('PGlite across a restart', () => {
  it('still holds the archive, its kept key and its sign-outs, and the collector resumes', async () => {
    const dataDir = await pgliteDataDir();
    const first = await startTestServer({ ...ARCHIVE_ENV, DATA_DIR: dataDir });
    const cookie = await signIn(first);
    expect((await asPage(first, cookie, '/archive/sources', 'POST')).status).toBe(201);
    await waitFollowing(first, cookie);
    const big = (await projectsByName(first)).get('acme-analytics-prod')?.id ?? '';
    const before = ArchivedOperationsPageSchema.parse(JSON.parse((await asPage(first, cookie, `/archive/projects/${big}/operations?status=failed,error`)).body));
    const signedOut = await signIn(first);
    await first.request({ method: 'POST', path: '/session/sign-out', headers: { cookie: signedOut, origin: `http://127.0.0.1:${first.port}` } });
    await first.stop();

    const second = await startTestServer({ ...ARCHIVE_ENV, DATA_DIR: dataDir });
    try {
      expect(second.running.archive.isCollecting()).toBe(true);
      const after = ArchivedOperationsPageSchema.parse(JSON.parse((await asPage(second, cookie, `/archive/projects/${big}/operations?status=failed,error`)).body));
      expect(after.operations.map((op) => op.id)).toEqual(before.operations.map((op) => op.id));
      expect((await asPage(second, signedOut, '/archive/sources')).status).toBe(401);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
