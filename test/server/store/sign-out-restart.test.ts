import { readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_SIGN_OUTS_DIR } from '../../../server/session/pending-sign-outs';
import { STORE_RETRY_MS } from '../../../server/store/store';
import { ownPostgres, type OwnPostgres } from '../../support/postgres-server';
import { testTempDir } from '../../support/test-tmp';
import { signIn, signOut, startChildServer, waitFor, type ChildServer } from './child-server';

// "A sign-out is never dropped" (server/session/pending-sign-outs.ts): made while Postgres is down, it holds on its
// instance at once and is kept on the instance's disk; the instance restarted before Postgres returns still refuses
// the cookie, and writes the sign-out to the store once it answers. Before, it was held in memory only: the restart
// forgot it, and the cookie worked again everywhere.

/** Connecting and migrating once Postgres answers, after the store's retry interval. */
const WRITTEN_WITHIN_MS = STORE_RETRY_MS + 10_000;

async function revocationsInStore(url: string): Promise<{ reason: string }[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<{ reason: string }>('SELECT reason FROM revoked_sessions')).rows;
  } catch {
    return [];
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('a sign-out made while Postgres is down, then a restart', () => {
  let cluster: OwnPostgres;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const servers: ChildServer[] = [];

  beforeAll(async () => {
    cluster = await ownPostgres();
    dataDir = await testTempDir('sign-out-restart-');
    env = { DATABASE_URL: cluster.url, DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '0' };
    servers.push(await startChildServer(env));
  }, 60_000);
  afterAll(async () => {
    for (const server of servers) await server.kill();
    await cluster.remove();
  });

  it('still refuses the cookie after the restart, and the sign-out reaches the store once it is back', { timeout: 120_000 }, async ({ annotate }) => {
    const [first] = servers as [ChildServer];
    const cookie = await signIn(first);
    const asks = (server: ChildServer) => server.request({ path: '/api/v2/projects?limit=1', headers: { cookie, accept: 'application/json' } });
    expect((await asks(first)).status).toBe(200);

    await cluster.stop('fast');
    expect(await signOut(first, cookie)).toBe(200);
    expect((await asks(first)).status).toBe(401);
    expect(await readdir(path.join(dataDir, PENDING_SIGN_OUTS_DIR))).toHaveLength(1);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = await startChildServer(env);
    servers.push(second);
    // Postgres is still down: what refuses the cookie is what the first instance kept on disk.
    expect((await asks(second)).status).toBe(401);
    expect(second.output()).toContain('sign-out kept in');

    await cluster.start();
    const started = performance.now();
    const written = await waitFor(
      'the kept sign-out to be written to the store',
      async () => {
        const rows = await revocationsInStore(cluster.url);
        return rows.length > 0 ? rows : undefined;
      },
      WRITTEN_WITHIN_MS,
    );
    expect(written).toEqual([{ reason: 'signed-out' }]);
    await waitFor('its file to be removed', async () => ((await readdir(path.join(dataDir, PENDING_SIGN_OUTS_DIR))).length === 0 ? true : undefined), 5_000);
    expect((await asks(second)).status).toBe(401);
    await annotate(`written ${Math.round(performance.now() - started)} ms after Postgres came back (the store is tried every ${STORE_RETRY_MS} ms)`);
  });
});
