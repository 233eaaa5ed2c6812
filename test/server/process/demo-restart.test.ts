import { afterAll, describe, expect, it, vi } from 'vitest';
import { SESSION_PATH } from '../../../src/config/session';
import { DEMO_KEY_FILE } from '../../../server/store/kept-file';
import { pgliteDataDir } from '../../support/pglite-template';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

// The embedded demo across a restart of `npm start`: the demo key and the simulated world are kept in DATA_DIR,
// so an open tab's session and a kept archive key go on working, the world's operations keep their ids and times and
// its branches stay, and the world never hands out an operation id the archive or a webhook saw before the restart.
// The history archive, kept with the demo key before the restart, agrees with the API after it: every operation it
// kept has the same created_at on the archive's page and the API's (they differed when the world was made anew).

afterAll(() => removeTestClientDir());

const demoKeyOf = (server: TestServer) => /Demo API key: (\S+)/.exec(server.printed.join('\n'))?.[1] ?? '';

async function signIn(server: TestServer, key: string): Promise<string> {
  const response = await server.request({
    method: 'POST',
    path: SESSION_PATH,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key, remember: true }),
  });
  expect(response.status, response.body).toBe(200);
  return response.headers['set-cookie']![0]!.split(';')[0]!;
}

async function getJson<T>(server: TestServer, cookie: string, path: string): Promise<T> {
  const answer = await server.request({ path, headers: { cookie } });
  expect(answer.status, answer.body).toBe(200);
  return JSON.parse(answer.body) as T;
}

async function projectId(server: TestServer, cookie: string, name: string): Promise<string> {
  const { projects } = await getJson<{ projects: { id: string; name: string }[] }>(server, cookie, '/api/v2/projects?limit=400');
  return projects.find((p) => p.name === name)?.id ?? '';
}

async function projectIds(server: TestServer, cookie: string): Promise<string[]> {
  const { projects } = await getJson<{ projects: { id: string }[] }>(server, cookie, '/api/v2/projects?limit=400');
  return projects.map((p) => p.id);
}

/** What the archive kept of a project, as its history page asks for it: `id created_at`, newest first. */
async function archivedTimes(server: TestServer, cookie: string, projectId: string): Promise<string[]> {
  const page = await getJson<{ operations?: { id: string; created_at: string }[] }>(server, cookie, `/archive/projects/${projectId}/operations?limit=1000`);
  return (page.operations ?? []).map((op) => `${op.id} ${op.created_at}`);
}

/** A branch made through the session in the named project: its id and the ids of the operations it started. */
async function makeBranch(server: TestServer, cookie: string, name: string): Promise<{ branch: string; operations: string[] }> {
  const page = { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${server.port}` };
  const made = await server.request({ method: 'POST', path: `/api/v2/projects/${await projectId(server, cookie, name)}/branches`, headers: page, body: '{}' });
  expect(made.status, made.body).toBe(201);
  const body = JSON.parse(made.body) as { branch: { id: string }; operations: { id: string }[] };
  return { branch: body.branch.id, operations: body.operations.map((op) => op.id) };
}

/** A project's operations as the API lists them, newest first: id and created_at. */
async function operationTimes(server: TestServer, cookie: string, name: string): Promise<string[]> {
  const page = await getJson<{ operations: { id: string; created_at: string }[] }>(
    server,
    cookie,
    `/api/v2/projects/${await projectId(server, cookie, name)}/operations?limit=1000`,
  );
  return page.operations.map((op) => `${op.id} ${op.created_at}`);
}

describe('the embedded demo across a restart', () => {
  it(
    'keeps its demo key and its world: an open tab goes on, history holds still and agrees with the archive kept before, branches stay, no id is reused',
    { timeout: 60_000 },
    async () => {
      const dataDir = await pgliteDataDir();
      // The collector reads every second, 700 operations a turn, so that the demo's histories are kept in seconds.
      const demo = { DATA_DIR: dataDir, SIM_API_KEY: '', ARCHIVE_INTERVAL_MS: '1000', ARCHIVE_BUDGET: '700' };
      const first = await startTestServer(demo);
      const key = demoKeyOf(first);
      expect(key).toMatch(/^[a-z0-9]{64}$/);
      expect((await readFile(path.join(dataDir, DEMO_KEY_FILE), 'utf8')).trim()).toBe(key);
      const cookie = await signIn(first, key);
      // Keep history with the demo key, and wait until blog-backend's whole history is in the archive.
      const kept = await first.request({ method: 'POST', path: '/archive/sources', headers: { cookie, origin: `http://127.0.0.1:${first.port}` } });
      expect(kept.status, kept.body).toBe(201);
      const blog = await projectId(first, cookie, 'blog-backend');
      await vi.waitFor(
        async () => {
          const page = await getJson<{ archive?: { backfilled?: boolean } }>(first, cookie, `/archive/projects/${blog}/operations?limit=1`);
          expect(page.archive?.backfilled).toBe(true);
        },
        { timeout: 30_000, interval: 200 },
      );
      const before = await makeBranch(first, cookie, 'scratchpad');
      const history = await operationTimes(first, cookie, 'blog-backend');
      const scratchpad = await operationTimes(first, cookie, 'scratchpad');
      await first.stop();

      const second = await startTestServer(demo);
      try {
        expect(demoKeyOf(second)).toBe(key);
        // The tab's cookie (its session, its key) works as it did.
        expect((await second.request({ path: '/api/v2/projects?limit=1', headers: { cookie } })).status).toBe(200);
        // The same operations at the same times (those made since the restart come on top), and the branch made before it.
        expect((await operationTimes(second, cookie, 'blog-backend')).slice(-history.length)).toEqual(history);
        expect(await operationTimes(second, cookie, 'scratchpad')).toEqual(expect.arrayContaining(scratchpad));
        const branches = await getJson<{ branches: { id: string }[] }>(
          second,
          cookie,
          `/api/v2/projects/${await projectId(second, cookie, 'scratchpad')}/branches`,
        );
        expect(branches.branches.map((b) => b.id)).toContain(before.branch);
        // The archive's page and the API's, project by project: the same time for every operation the archive kept,
        // and none it kept that the API no longer lists.
        let compared = 0;
        for (const id of await projectIds(second, cookie)) {
          const archived = await archivedTimes(second, cookie, id);
          const listed = new Set(
            (
              await getJson<{ operations: { id: string; created_at: string }[] }>(second, cookie, `/api/v2/projects/${id}/operations?limit=1000`)
            ).operations.map((op) => `${op.id} ${op.created_at}`),
          );
          expect(archived.filter((op) => !listed.has(op))).toEqual([]);
          compared += archived.length;
        }
        // blog-backend's whole history before the restart among them, at the times the API gave then.
        expect(await archivedTimes(second, cookie, blog)).toEqual(expect.arrayContaining(history));
        expect(compared).toBeGreaterThanOrEqual(history.length);
        const after = await makeBranch(second, cookie, 'blog-backend');
        expect(after.operations.length).toBeGreaterThan(0);
        expect(after.operations.filter((id) => before.operations.includes(id) || history.some((op) => op.startsWith(id)))).toEqual([]);
      } finally {
        await second.stop();
      }
    },
  );
});
