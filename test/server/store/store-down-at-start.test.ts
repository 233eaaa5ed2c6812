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
// naming the store; a sign-out made meanwhile holds on the instance at once; and once Postgres is up the store
// opens by itself within its retry interval (no request has to ask) and the sign-out is written to it.

/** The store's own open once Postgres answers: connecting and applying the migrations to an empty database. */
const OPEN_MS = 3_000;

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

  it('serves sign-in, the API and pages, refuses a signed-out cookie at once, and writes that sign-out once the store opens by itself', { timeout: 60_000 }, async ({ annotate }) => {
    expect((await server.request({ path: '/healthz' })).status).toBe(200);
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

    const signedOut = await signIn(server);
    expect(await signOut(server, signedOut)).toBe(200);
    expect((await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie: signedOut } })).status).toBe(401);
    expect(server.output()).toContain('sign-outs hold on this instance and are written when the store answers');

    await cluster.start();
    const started = performance.now();
    // Nothing asks the store meanwhile: it opens on its own retry, and writes what waited.
    const written = await waitFor('the store to open and write the sign-out', async () => {
        const rows = await revocationsInStore(cluster.url);
        return rows?.length ? rows : undefined;
      }, STORE_RETRY_MS + OPEN_MS);
    const openedMs = Math.round(performance.now() - started);

    expect(written).toEqual([{ reason: 'signed-out' }]);
    const archived = await server.request({ path: '/archive/sources', headers: { cookie, accept: 'application/json' } });
    expect(archived.status, archived.body).toBe(200);
    expect(JSON.parse(archived.body)).toEqual({ sources: [] });
    expect((await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie: signedOut } })).status).toBe(401);
    expect(server.child.exitCode).toBeNull();
    await annotate(`store opened ${openedMs} ms after Postgres started (retry every ${STORE_RETRY_MS} ms), the sign-out made while it was down written then`);
  });
});
