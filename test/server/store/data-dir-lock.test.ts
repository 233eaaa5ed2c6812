import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../../server/store/data-dir-lock';
import { pgliteDataDir } from '../../support/pglite-template';
import { keepHistory, signIn, signOut, spawnServer, startChildServer, type ChildServer } from './child-server';

// "A second server on the same DATA_DIR exits with that message within seconds and the first one's data is
// intact" (server/store/data-dir-lock.ts): the embedded store (PGlite) is for one process, so a second server
// on its folder is refused at start, naming the folder and the process holding it, and never touches the store;
// a lock left by a process that is gone (killed -9) is taken over by the next server, with the data it kept.

/**
 * "Within seconds": the second server's whole life, most of it tsx compiling the server before it starts (3-5 s in
 * CI; beside a second CI run it took past 15 s).
 */
const REFUSED_WITHIN_MS = 30_000;

// The embedded store: no DATABASE_URL, whatever the test's own environment says.
const EMBEDDED = { DATABASE_URL: '' };

async function lockHolder(dataDir: string): Promise<number | undefined> {
  const file = path.join(dataDir, LOCK_FILE);
  return existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as { pid: number }).pid : undefined;
}

describe('two servers on one DATA_DIR (the embedded store)', () => {
  let dataDir: string;
  let first: ChildServer;
  // What the tests made, undone in reverse whatever failed.
  const cleanups: (() => Promise<void>)[] = [];
  let cookie = '';
  let signedOut = '';

  const sources = async (server: ChildServer) => {
    const answer = await server.request({ path: '/archive/sources', headers: { cookie, accept: 'application/json' } });
    expect(answer.status, answer.body).toBe(200);
    return (JSON.parse(answer.body) as { sources: { isOwnKey: boolean }[] }).sources;
  };
  const refusesSignedOut = async (server: ChildServer) => (await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie: signedOut } })).status;

  beforeAll(async () => {
    // A folder holding a migrated store (as one that has served before): PGlite opens it at start.
    dataDir = await pgliteDataDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    first = await startChildServer({ ...EMBEDDED, DATA_DIR: dataDir });
    cleanups.push(() => first.kill());
    cookie = await signIn(first);
    expect((await keepHistory(first, cookie)).status).toBe(201);
    signedOut = await signIn(first);
    expect(await signOut(first, signedOut)).toBe(200);
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(
    "refuses the second within seconds, naming the folder and the first's process, and the first serves its data on",
    { timeout: 60_000 },
    async ({ annotate }) => {
      const started = performance.now();
      const second = await spawnServer({ ...EMBEDDED, DATA_DIR: dataDir });
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        second.exited,
        new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), REFUSED_WITHIN_MS))),
      ]);
      clearTimeout(timer);
      const tookMs = Math.round(performance.now() - started);
      if (code === 'still running') second.child.kill('SIGKILL');

      expect(code, second.output()).toBe(1);
      expect(second.output()).toContain(
        `Could not start: DATA_DIR ${path.resolve(dataDir)} is in use by another Ops Console (process ${first.child.pid} on ${hostname()}`,
      );
      expect(second.output()).not.toContain('Ops Console: http');
      expect(await lockHolder(dataDir)).toBe(first.child.pid);
      expect((await first.request({ path: '/healthz' })).status).toBe(200);
      expect(await sources(first)).toEqual([expect.objectContaining({ isOwnKey: true })]);
      expect(await refusesSignedOut(first)).toBe(401);
      expect(first.child.exitCode).toBeNull();
      await annotate(`the second server exited ${code} after ${tookMs} ms`);
    },
  );

  it('takes over the lock of a server that was killed, and finds what it kept', { timeout: 60_000 }, async () => {
    const killedPid = first.child.pid;
    await first.kill();
    // Killed -9, it could not remove its lock: the file names a process that is gone.
    expect(await lockHolder(dataDir)).toBe(killedPid);

    const next = await startChildServer({ ...EMBEDDED, DATA_DIR: dataDir });
    cleanups.push(() => next.kill());

    expect(await lockHolder(dataDir)).toBe(next.child.pid);
    expect(await sources(next)).toEqual([expect.objectContaining({ isOwnKey: true })]);
    // The sign-out made on the first server is in the store, read before this one serves: refused from its first answer.
    expect(await refusesSignedOut(next)).toBe(401);
  });
});
