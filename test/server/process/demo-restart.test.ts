import { afterAll, describe, expect, it } from 'vitest';
import { SESSION_PATH } from '../../../src/config/session';
import { DEMO_KEY_FILE } from '../../../server/store/kept-file';
import { pgliteDataDir } from '../../support/pglite-template';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

// The embedded demo across a restart of `npm start`: the demo key it made is kept in DATA_DIR, so an open
// tab's session and a kept archive key go on working, and the simulated world it starts again never hands out
// an operation id the archive or a webhook saw before the restart.

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

/** A branch made through the session: the ids of the operations it started. */
async function branchOperations(server: TestServer, cookie: string): Promise<string[]> {
  const page = { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${server.port}` };
  const projects = JSON.parse((await server.request({ path: '/api/v2/projects?limit=400', headers: { cookie } })).body) as {
    projects: { id: string; name: string }[];
  };
  const project = projects.projects.find((p) => p.name === 'scratchpad') ?? projects.projects[0];
  const made = await server.request({ method: 'POST', path: `/api/v2/projects/${project?.id ?? ''}/branches`, headers: page, body: '{}' });
  expect(made.status, made.body).toBe(201);
  return (JSON.parse(made.body) as { operations: { id: string }[] }).operations.map((op) => op.id);
}

describe('the embedded demo across a restart', () => {
  it('keeps its demo key, so an open tab goes on, and never reuses an operation id', { timeout: 60_000 }, async () => {
    const dataDir = await pgliteDataDir();
    const first = await startTestServer({ DATA_DIR: dataDir, SIM_API_KEY: '' });
    const key = demoKeyOf(first);
    expect(key).toMatch(/^[a-z0-9]{64}$/);
    expect((await readFile(path.join(dataDir, DEMO_KEY_FILE), 'utf8')).trim()).toBe(key);
    const cookie = await signIn(first, key);
    const before = await branchOperations(first, cookie);
    await first.stop();

    const second = await startTestServer({ DATA_DIR: dataDir, SIM_API_KEY: '' });
    try {
      expect(demoKeyOf(second)).toBe(key);
      // The tab's cookie (its session, its key) works as it did.
      expect((await second.request({ path: '/api/v2/projects?limit=1', headers: { cookie } })).status).toBe(200);
      const after = await branchOperations(second, cookie);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((id) => before.includes(id))).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
