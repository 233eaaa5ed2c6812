import http from 'node:http';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../../server/process/compose';
import { createStaticAssets } from '../../../server/http/static-assets';
import { close, closedPort, listen, rawRequest } from '../http-helpers';
import { pgliteDataDir } from '../../support/pglite-template';
import { removeTestClientDir, TEST_HTML, testClientDir } from '../start-test-server';

// docs/session-and-security.md: the key never appears in a log line. The console's server runs in process with its real
// banner and log (stdout, stderr), and everything it could print is caught: console.* and raw writes
// to stdout and stderr. A whole session's worth of traffic goes through it, signed in by the session
// cookie as the page does, and by a key of its own as API clients do.

const KEY = 'log-test-key-7f3a9c0e5b1d4e2a9c6b';

let printed: string[] = [];

beforeEach(() => {
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
  }
});
afterEach(() => vi.restoreAllMocks());
// Whole sessions against a server with its store open, each: more than the default 5 s on two busy cores.
vi.setConfig({ testTimeout: 30_000 });
afterAll(() => removeTestClientDir());

async function start(env: NodeJS.ProcessEnv): Promise<{ server: RunningServer; port: number }> {
  const dir = await testClientDir();
  // The default banner and log: straight to stdout and stderr, caught above.
  const server = await startServer({
    mode: 'production',
    env: { HOST: '127.0.0.1', PORT: '0', DATA_DIR: await pgliteDataDir(), ...env },
    serving: () => Promise.resolve({ template: { html: () => Promise.resolve(TEST_HTML) }, assets: createStaticAssets(dir) }),
  });
  return { server, port: Number(new URL(server.url).port) };
}

async function stop(server: RunningServer): Promise<void> {
  server.server.closeAllConnections();
  await server.stop();
}

/** Signs in through the session route, as the key screen does; returns the cookie. */
async function signIn(port: number, key: string): Promise<string> {
  const response = await rawRequest(port, { method: 'POST', path: '/session', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  return response.headers['set-cookie']?.[0]?.split(';')[0] ?? '';
}

/** Lines that mention `secret` at all. */
function linesWith(secret: string): string[] {
  return printed
    .join('\n')
    .split('\n')
    .filter((line) => line.includes(secret));
}

function api(port: number, key: string) {
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  return {
    get: (p: string) => rawRequest(port, { path: `/api/v2${p}`, headers }),
    post: (p: string, body: string) =>
      rawRequest(port, { method: 'POST', path: `/api/v2${p}`, headers: { ...headers, 'content-type': 'application/json' }, body }),
    delete: (p: string) => rawRequest(port, { method: 'DELETE', path: `/api/v2${p}`, headers }),
  };
}

describe('npm start on the simulator', () => {
  it('prints the demo key once, in the start-up banner, and neither it nor a created secret over a whole session', async () => {
    printed = [];
    const { server, port } = await start({ SIM_API_KEY: KEY });
    const client = api(port, KEY);
    // What the console does in a session: who am I, projects, a history and its next page, a detail.
    expect((await client.get('/auth')).status).toBe(200);
    await client.get('/users/me/organizations');
    const { projects } = JSON.parse((await client.get('/projects?limit=400')).body) as { projects: { id: string }[] };
    type Page = { operations: { id: string }[]; pagination?: { cursor: string } };
    const pages = await Promise.all(
      projects.map(async ({ id }) => ({ id, page: JSON.parse((await client.get(`/projects/${id}/operations?limit=2`)).body) as Page })),
    );
    const { id: projectId, page } = pages.find(({ page }) => page.operations.length > 0)!;
    await client.get(`/projects/${projectId}/operations?limit=2&cursor=${encodeURIComponent(page.pagination?.cursor ?? '')}`);
    await client.get(`/projects/${projectId}/operations/${page.operations[0]!.id}`);
    // The failures a session meets: a missing operation, a bad body, a wrong key, a route that does not exist.
    expect((await client.get(`/projects/${projectId}/operations/no-such-operation`)).status).toBe(404);
    expect((await client.post('/api_keys', '{not json')).status).toBeGreaterThanOrEqual(400);
    expect((await api(port, `${KEY}-wrong`).get('/projects')).status).toBe(401);
    expect((await client.get('/nothing/here')).status).toBe(404);
    // A created key's secret, used, revoked, then refused.
    const created = JSON.parse((await client.post('/api_keys', JSON.stringify({ key_name: 'log-test' }))).body) as { id: number; key: string };
    expect((await api(port, created.key).get('/projects')).status).toBe(200);
    expect((await client.delete(`/api_keys/${created.id}`)).status).toBe(200);
    expect((await api(port, created.key).get('/projects')).status).toBe(401);
    // The page's way: a session, its calls, a page load, an asset that is not there, a revoked key's session, sign-out.
    const cookie = await signIn(port, KEY);
    expect((await rawRequest(port, { path: '/api/v2/projects', headers: { cookie } })).status).toBe(200);
    await rawRequest(port, { path: `/projects/${projectId}`, headers: { accept: 'text/html', cookie } });
    await rawRequest(port, { path: '/assets/missing.js', headers: { cookie } });
    await signIn(port, `${KEY}-wrong`);
    await signIn(port, 'clé-de-démo');
    const doomed = await signIn(port, created.key);
    expect((await rawRequest(port, { path: '/api/v2/projects', headers: { cookie: doomed } })).status).toBe(401);
    await rawRequest(port, { method: 'POST', path: '/session/sign-out', headers: { cookie } });
    await stop(server);

    expect(linesWith(KEY)).toEqual([expect.stringMatching(new RegExp(`^\\s*Demo API key: ${KEY}$`))]);
    expect(linesWith(created.key)).toEqual([]);
    expect(linesWith('Bearer')).toEqual([]);
  });
});

describe('npm start with API_URL', () => {
  const upstreamSaw: string[] = [];
  let reply: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => undefined;
  const upstream = http.createServer((req, res) => {
    upstreamSaw.push(req.url ?? '');
    reply(req, res);
  });
  afterAll(() => close(upstream));

  it('never prints the key, whatever the upstream answers', async () => {
    printed = [];
    const { server, port } = await start({ API_URL: `http://127.0.0.1:${await listen(upstream)}/api/v2`, SIM_API_KEY: KEY });
    const client = api(port, KEY);
    reply = (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: req.headers.authorization }));
    expect((await client.get('/projects')).status).toBe(200);
    reply = (_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>upstream broke</h1>');
    expect((await client.get('/projects')).status).toBe(500);
    reply = (_req, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/steal' }).end();
    expect((await client.post('/api_keys', '{"key_name":"x"}')).status).toBe(502);
    reply = (_req, res) => res.destroy();
    expect((await client.get('/projects')).status).toBe(502);
    expect((await client.get('/../etc/passwd')).status).toBeGreaterThanOrEqual(400);
    reply = (_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"nope"}');
    await signIn(port, KEY);
    await stop(server);

    expect(upstreamSaw.length).toBeGreaterThanOrEqual(4);
    expect(linesWith(KEY)).toEqual([]);
    expect(linesWith('Bearer')).toEqual([]);
  });

  it('never prints the key when the API cannot be reached at all, and logs the cause once', async () => {
    printed = [];
    const down = await start({ API_URL: `http://127.0.0.1:${await closedPort()}/api/v2` });
    try {
      const response = await api(down.port, KEY).get('/projects');
      await signIn(down.port, KEY);

      expect(response.status).toBe(502);
      expect(response.body).not.toContain(KEY);
      // Both the API call and the sign-in's key check found it down: one line says so (server/log/outage.ts).
      expect(linesWith('connection refused (ECONNREFUSED)').map((line) => JSON.parse(line) as { event: string })).toEqual([
        expect.objectContaining({ event: 'api.unreachable', level: 'warn' }),
      ]);
      expect(linesWith(KEY)).toEqual([]);
    } finally {
      await stop(down.server);
    }
  });
});
