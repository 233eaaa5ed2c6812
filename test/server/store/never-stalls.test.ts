import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStore, type StoreConfig } from '../../../server/store';
import type { Db } from '../../../server/store/db';
import { asPage, KEY, signIn } from '../archive/archive-support';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { copyMigratedStore, pgliteDataDir } from '../../support/pglite-template';
import { testTempDir } from '../../support/test-tmp';

// The embedded store never stalls the server (docs/architecture.md, "The store"; docs/operations.md): it opens
// at start in the background, so /healthz, /readyz and a live page are answered while it is still opening (the
// test holds the open), and what needs it waits for it; the insights run a few at a time, so a cheap read is
// answered while a heavy one waits for its slot (the test holds the slot). No clock: each wait is a held promise.

afterAll(() => removeTestClientDir());

/** An opener the test lets go of: `asked` once the server began opening, the real open once `release` is called. */
function heldOpener(before?: () => Promise<void>) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked = false;
  const open = async (config: StoreConfig): Promise<Db> => {
    asked = true;
    await released;
    await before?.();
    return openStore(config);
  };
  return { open, release, asked: () => asked };
}

/** Whether `promise` has settled by the time `after` has (both started first). */
async function settledBefore(promise: Promise<unknown>, after: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await after;
  return settled;
}

const readiness = async (server: TestServer) => {
  const answer = await server.request({ path: '/readyz' });
  return { status: answer.status, json: JSON.parse(answer.body) as { status: string; checks: { store: { status: string } } } };
};

describe('the embedded store never stalls the server', () => {
  let server: TestServer | undefined;
  let release: (() => void) | undefined;

  afterEach(async () => {
    release?.();
    await server?.stop();
    server = undefined;
  });

  it('answers /healthz, /readyz and live pages while a fresh store is still opening, and says when it is ready', async () => {
    const dataDir = await testTempDir('ops-console-fresh-');
    // A fresh DATA_DIR: once let go, the open finds the migrated folder a first start would have made.
    const opener = heldOpener(() => copyMigratedStore(dataDir));
    release = opener.release;
    server = await startTestServer({ SIM_API_KEY: KEY, DATA_DIR: dataDir }, {}, { openStore: opener.open });
    expect(opener.asked()).toBe(true);
    expect(server.running.store.opened()).toBeUndefined();
    expect(server.printed.join('\n')).toMatch(/Store: embedded PGlite in \S+ \(opening in the background; the log says when it is ready\)/);

    expect((await server.request({ path: '/healthz' })).status).toBe(200);
    const opening = await readiness(server);
    expect(opening).toMatchObject({ status: 200, json: { status: 'ready', checks: { store: { status: 'opening' } } } });
    const cookie = await signIn(server);
    const page = await server.request({ path: '/projects', headers: { cookie, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('"signedIn":true');
    const projects = await asPage(server, cookie, '/api/v2/projects?limit=1');
    expect(projects.status).toBe(200);
    // Nothing was kept in a store that did not exist: the archive says so without waiting for the open.
    const history = await asPage(server, cookie, '/archive/projects/p-unknown/operations');
    expect({ status: history.status, body: JSON.parse(history.body) as unknown }).toEqual({ status: 200, body: { archived: false } });
    expect(server.running.store.opened()).toBeUndefined();

    const opened = new Promise<void>((resolve) => server?.running.store.onOpen(() => resolve()));
    opener.release();
    await opened;
    expect(server.logged.some((line) => /^Store: \S+ is ready \(opened in \d+\.\d s\)$/.test(line))).toBe(true);
    expect((await readiness(server)).json.checks.store.status).toBe('ok');
  });

  it('holds a signed-in request until a kept store has opened (sign-outs are in it), and never /healthz', async () => {
    const opener = heldOpener();
    release = opener.release;
    server = await startTestServer({ SIM_API_KEY: KEY, DATA_DIR: await pgliteDataDir() }, {}, { openStore: opener.open });
    // Sign-in reads the API, not the store.
    const cookie = await signIn(server);
    const page = server.request({ path: '/projects', headers: { cookie, accept: 'text/html' } });
    expect(await settledBefore(page, server.request({ path: '/healthz' }))).toBe(false);
    expect(await settledBefore(page, readiness(server))).toBe(false);
    opener.release();
    expect((await page).status).toBe(200);
  });

  it('answers a cheap archive read while a heavy one waits for its slot, then the heavy one', async () => {
    server = await startTestServer({ SIM_API_KEY: KEY }, {}, { heavyReads: { atOnce: 1 } });
    await server.running.store.atStart;
    const cookie = await signIn(server);
    const listed = JSON.parse((await asPage(server, cookie, '/api/v2/projects?limit=1')).body) as { projects: { id: string }[] };
    const projectId = listed.projects[0]?.id ?? '';
    let letGo: () => void = () => undefined;
    const holding = server.running.heavyReads.run(() => new Promise<void>((resolve) => (letGo = resolve)));
    release = () => letGo();
    const insights = asPage(server, cookie, '/archive/insights');
    await expect.poll(() => server?.running.heavyReads.waiting()).toBe(1);
    const cheap = asPage(server, cookie, `/archive/projects/${projectId}/operations`);
    expect(await settledBefore(insights, cheap)).toBe(false);
    expect((await cheap).status).toBe(200);
    letGo();
    await holding;
    const answered = await insights;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ projects: [] });
  });

  it('answers 503 naming the store as busy when a heavy read waited its turn too long', async () => {
    server = await startTestServer({ SIM_API_KEY: KEY }, {}, { heavyReads: { atOnce: 1, waitMs: 50 } });
    const cookie = await signIn(server);
    let letGo: () => void = () => undefined;
    const holding = server.running.heavyReads.run(() => new Promise<void>((resolve) => (letGo = resolve)));
    release = () => letGo();
    const refused = await asPage(server, cookie, '/archive/insights');
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'store_unavailable', message: expect.stringMatching(/store is busy/) as string });
    letGo();
    await holding;
  });
});
