import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, preview, type Logger, type PreviewServer } from 'vite';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { opsConsole } from '../../server/vite-plugin';
import { close, closedPort, listen, rawRequest } from './http-helpers';

// DESIGN §5: the key never appears in a log line. `npm start` is vite preview with the ops-console
// plugin; here it runs in process so everything it could print is caught: Vite's logger, console.*,
// and raw writes to stdout and stderr. A whole session's worth of API traffic goes through it.

const KEY = 'log-test-key-7f3a9c0e5b1d4e2a9c6b';

let printed: string[] = [];

function capturingLogger(): Logger {
  const logger = createLogger('info');
  for (const level of ['info', 'warn', 'warnOnce', 'error'] as const) logger[level] = (message: string) => void printed.push(message);
  return logger;
}

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

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ops-console-logs-'));
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await writeFile(path.join(root, 'dist', 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function startPreview(env: NodeJS.ProcessEnv): Promise<{ server: PreviewServer; port: number }> {
  const server = await preview({
    configFile: false,
    root,
    customLogger: capturingLogger(),
    plugins: [opsConsole({ env })],
    preview: { host: '127.0.0.1', port: 0, open: false },
  });
  // The banner comes once the backend is ready; waiting for it keeps it in this server's test, not the next one's.
  for (let tries = 0; !printed.some((line) => line.includes('Ops Console:')); tries++) {
    if (tries > 200) throw new Error('the server printed no start-up banner');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { server, port: (server.httpServer.address() as AddressInfo).port };
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
    post: (p: string, body: string) => rawRequest(port, { method: 'POST', path: `/api/v2${p}`, headers: { ...headers, 'content-type': 'application/json' }, body }),
    delete: (p: string) => rawRequest(port, { method: 'DELETE', path: `/api/v2${p}`, headers }),
  };
}

describe('npm start on the simulator', () => {
  let server: PreviewServer;
  let port: number;

  beforeAll(async () => {
    printed = [];
    ({ server, port } = await startPreview({ SIM_API_KEY: KEY }));
  });
  afterAll(() => server.close());

  it('prints the demo key once, in the start-up banner, and neither it nor a created secret over a whole session', async () => {
    const client = api(port, KEY);
    // What the console does in a session: who am I, projects, a history and its next page, a detail.
    expect((await client.get('/auth')).status).toBe(200);
    await client.get('/users/me/organizations');
    const { projects } = JSON.parse((await client.get('/projects?limit=400')).body) as { projects: { id: string }[] };
    type Page = { operations: { id: string }[]; pagination?: { cursor: string } };
    const pages = await Promise.all(projects.map(async ({ id }) => ({ id, page: JSON.parse((await client.get(`/projects/${id}/operations?limit=2`)).body) as Page })));
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
    // Something to log, if anything logs requests: a page load and an asset that is not there.
    await rawRequest(port, { path: `/projects/${projectId}`, headers: { accept: 'text/html', authorization: `Bearer ${KEY}` } });
    await rawRequest(port, { path: '/assets/missing.js', headers: { authorization: `Bearer ${KEY}` } });

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
  let server: PreviewServer;
  let port: number;

  beforeAll(async () => {
    printed = [];
    ({ server, port } = await startPreview({ API_URL: `http://127.0.0.1:${await listen(upstream)}/api/v2`, SIM_API_KEY: KEY }));
  });
  afterAll(async () => {
    await server.close();
    await close(upstream);
  });

  it('never prints the key, whatever the upstream answers', async () => {
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

    expect(upstreamSaw.length).toBeGreaterThanOrEqual(4);
    expect(linesWith(KEY)).toEqual([]);
    expect(linesWith('Bearer')).toEqual([]);
  });

  it('never prints the key when the API cannot be reached at all', async () => {
    printed = [];
    const down = await startPreview({ API_URL: `http://127.0.0.1:${await closedPort()}/api/v2` });
    try {
      const response = await api(down.port, KEY).get('/projects');

      expect(response.status).toBe(502);
      expect(response.body).not.toContain(KEY);
      expect(linesWith(KEY)).toEqual([]);
    } finally {
      await down.server.close();
    }
  });
});
