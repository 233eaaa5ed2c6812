// What the archive's server tests share: a console server on either store (PGlite in a DATA_DIR of its
// own, or a database of its own on the run's Postgres), signing in, the API read with a key, and the
// projects of the demo world by name.
import { expect } from 'vitest';
import type { Driver } from '../store/store-drivers';
import { postgresDatabase } from '../store/store-drivers';
import { pgliteDataDir } from '../../support/pglite-template';
import type { ServingParts } from '../../../server/process/compose';
import { startTestServer, type TestServer } from '../start-test-server';

export const KEY = 'archive-test-key-00000000000000000';

/** The store's part of a test server's environment. */
export async function storeEnv(driver: Driver): Promise<NodeJS.ProcessEnv> {
  return driver === 'pglite' ? { DATA_DIR: await pgliteDataDir() } : { DATABASE_URL: await postgresDatabase() };
}

/** `rendering`: pages rendered on the server too (the insights' pages read the store through it). */
export async function startArchiveServer(
  driver: Driver,
  env: NodeJS.ProcessEnv = {},
  rendering: Pick<ServingParts, 'render' | 'renderDeadlineMs' | 'maxRenders'> = {},
): Promise<TestServer> {
  return startTestServer(
    {
      SIM_API_KEY: KEY,
      SIM_FAULTS: '1',
      ARCHIVE_BUDGET: '700',
      ARCHIVE_LOCK_RETRY_MS: '100',
      ARCHIVE_INTERVAL_MS: '200',
      ARCHIVE_FULL_READ_MS: '1000',
      ...(await storeEnv(driver)),
      ...env,
    },
    rendering,
  );
}

export async function signIn(server: TestServer, key = KEY): Promise<string> {
  const response = await server.request({
    method: 'POST',
    path: '/session',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: `http://127.0.0.1:${server.port}` },
    body: JSON.stringify({ key }),
  });
  expect(response.status, response.body).toBe(200);
  const set = response.headers['set-cookie']?.[0] ?? '';
  return set.split(';')[0] ?? '';
}

/** A request of the page's: the session cookie, same origin. */
export function asPage(server: TestServer, cookie: string, path: string, method = 'GET') {
  return server.request({ method, path, headers: { cookie, accept: 'application/json', origin: `http://127.0.0.1:${server.port}` } });
}

export async function apiJson(server: TestServer, path: string, key = KEY, method = 'GET', body?: unknown): Promise<unknown> {
  const response = await server.request({
    method,
    path: `/api/v2${path}`,
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, response.body).toBeLessThan(300);
  return JSON.parse(response.body);
}

interface Listed {
  projects: { id: string; name: string; org_id?: string }[];
}

/** Every project the key reaches, by name (its own, then each organization's). */
export async function projectsByName(server: TestServer, key = KEY): Promise<Map<string, { id: string; orgId: string | undefined }>> {
  const { organizations } = (await apiJson(server, '/users/me/organizations', key)) as { organizations: { id: string }[] };
  const found = new Map<string, { id: string; orgId: string | undefined }>();
  for (const org of [undefined, ...organizations]) {
    const page = (await apiJson(server, `/projects?limit=400${org ? `&org_id=${org.id}` : ''}`, key)) as Listed;
    for (const p of page.projects) found.set(p.name, { id: p.id, orgId: p.org_id });
  }
  return found;
}

/** Every operation of a project as the API lists them, newest first (the walk the archive spares the page). */
export async function apiOperations(
  server: TestServer,
  projectId: string,
  key = KEY,
): Promise<{ id: string; status: string; action: string; created_at: string }[]> {
  const all: { id: string; status: string; action: string; created_at: string }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = (await apiJson(server, `/projects/${projectId}/operations?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key)) as {
      operations: { id: string; status: string; action: string; created_at: string }[];
      pagination?: { cursor: string };
    };
    all.push(...page.operations);
    if (page.operations.length < 1000 || !page.pagination) return all;
    cursor = page.pagination.cursor;
  }
}

/** Waits until the session's own source has read every project to its end. */
export async function waitFollowing(server: TestServer, cookie: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const body = JSON.parse((await asPage(server, cookie, '/archive/sources')).body) as { sources: { state: string }[] };
        return body.sources[0]?.state;
      },
      { timeout: 60_000, interval: 100 },
    )
    .toBe('following');
}
