import { rm, stat, writeFile, readFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SESSION_ENDED_CODES, SESSION_ENDED_MESSAGES, SESSION_PATH } from '../../../src/config/session';
import { resolveSessionSecret, SESSION_SECRET_FILE } from '../../../server/session/session-secret';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { testTempDir } from '../../support/test-tmp';

// A restart of the console's server: without SESSION_SECRET it keeps a generated secret in DATA_DIR, so
// sessions outlive it; a cookie that cannot be opened (a new secret) is told apart from a key the API
// refused, on /api/v2 and on the page.

const KEY = 'restart-test-key-00000000000000000';
const SECRET = 'a-session-secret-that-is-long-enough-000';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await testTempDir('ops-console-data-');
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  await removeTestClientDir();
});

async function signIn(server: TestServer): Promise<string> {
  const response = await server.request({
    method: 'POST',
    path: SESSION_PATH,
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: `http://127.0.0.1:${server.port}` },
    body: JSON.stringify({ key: KEY, remember: true }),
  });
  expect(response.status).toBe(200);
  return response.headers['set-cookie']![0]!.split(';')[0]!;
}

function dataBlockOf(html: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="ops-console-data">(.*?)<\/script>/s.exec(html);
  return JSON.parse(match?.[1] ?? 'null') as Record<string, unknown>;
}

describe('the session secret', () => {
  it('is generated once into DATA_DIR (folder 0700, file 0600) and read back on the next start', async () => {
    const dataDir = path.join(await tempDir(), 'nested', '.data');
    const first = await resolveSessionSecret({ configured: undefined, dataDir });
    const second = await resolveSessionSecret({ configured: undefined, dataDir });

    expect(first.source).toBe('generated');
    expect(second).toMatchObject({ source: 'kept', secret: first.secret });
    expect(first.secret).toMatch(/^[\w-]{43}$/);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dataDir, SESSION_SECRET_FILE))).mode & 0o777).toBe(0o600);
    expect((await readFile(path.join(dataDir, SESSION_SECRET_FILE), 'utf8')).trim()).toBe(first.secret);
  });

  it('gives way to SESSION_SECRET, which writes nothing', async () => {
    const dataDir = path.join(await tempDir(), '.data');
    expect(await resolveSessionSecret({ configured: SECRET, dataDir })).toEqual({ secret: SECRET, source: 'env' });
    await expect(stat(dataDir)).rejects.toThrow(/ENOENT/);
  });

  it('falls back to a random secret per start, saying why, when DATA_DIR cannot be used', async () => {
    const blocker = path.join(await tempDir(), 'a-file');
    await writeFile(blocker, 'not a folder');
    const resolved = await resolveSessionSecret({ configured: undefined, dataDir: blocker });
    expect(resolved.source).toBe('random');
    expect(resolved.secret).toBeUndefined();
    expect(resolved.problem).toMatch(/EEXIST|ENOTDIR/);
  });

  it('refuses a kept file too short to be a secret instead of using it', async () => {
    const dataDir = await tempDir();
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, SESSION_SECRET_FILE), 'short\n');
    expect(await resolveSessionSecret({ configured: undefined, dataDir })).toMatchObject({ source: 'random', secret: undefined });
  });
});

describe('a restart of the console’s server', () => {
  const running: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
  });
  const start = async (env: NodeJS.ProcessEnv) => {
    const server = await startTestServer({ SIM_API_KEY: KEY, ...env });
    running.push(server);
    return server;
  };

  it('keeps sessions by default: a cookie from before the restart still opens its session', async () => {
    const DATA_DIR = await tempDir();
    const before = await start({ DATA_DIR });
    const cookie = await signIn(before);
    expect(before.printed.join('\n')).toContain(`secret kept in ${path.join(DATA_DIR, SESSION_SECRET_FILE)}`);
    await before.stop();
    running.length = 0;

    const after = await start({ DATA_DIR });
    const projects = await after.request({ path: '/api/v2/projects', headers: { cookie } });
    expect(projects.status).toBe(200);
  });

  it('says "the server restarted", never "key rejected", when a cookie cannot be opened under the new secret', async () => {
    const before = await start({ DATA_DIR: await tempDir() });
    const cookie = await signIn(before);
    const after = await start({ DATA_DIR: await tempDir() });

    const api = await after.request({ path: '/api/v2/projects', headers: { cookie } });
    expect(api.status).toBe(401);
    expect(JSON.parse(api.body)).toMatchObject({ code: SESSION_ENDED_CODES.restarted, message: SESSION_ENDED_MESSAGES.restarted });
    expect(api.body).not.toMatch(/rejected/i);

    const page = await after.request({ path: '/projects', headers: { cookie, accept: 'text/html' } });
    expect(dataBlockOf(page.body)).toMatchObject({ session: { signedIn: false }, sessionEnded: 'restarted' });
  });

  it('tells the page when no secret could be kept, so the key screen promises no 30 days', async () => {
    const blocker = path.join(await tempDir(), 'a-file');
    await writeFile(blocker, 'not a folder');
    const server = await start({ DATA_DIR: blocker });
    expect(server.printed.join('\n')).toMatch(/a restart ends every session/);
    const page = await server.request({ path: '/', headers: { accept: 'text/html' } });
    expect(dataBlockOf(page.body)).toMatchObject({ session: { signedIn: false, endsOnRestart: true } });
  });
});
