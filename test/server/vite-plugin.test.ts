import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, createServer, preview, type Logger, type PreviewServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, opsConsole } from '../../server/vite-plugin';
import { close, listen, rawRequest } from './http-helpers';

// Real Vite servers (preview over a tiny prebuilt dist/, and dev) with the plugin, on 127.0.0.1:0.

const KEY = 'plugin-test-key-0000000000000000';
const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger('silent');
  logger.info = (message) => lines.push(message);
  logger.warn = (message) => lines.push(message);
  logger.error = (message) => lines.push(message);
  return { logger, lines };
}

function portOf(server: ViteDevServer | PreviewServer): number {
  return (server.httpServer!.address() as AddressInfo).port;
}

/** The banner is printed once the server listens, after the backend is ready. */
async function bannerOf(lines: string[]): Promise<string> {
  // Loading the backend through Vite's module runner takes a few seconds on a loaded machine.
  await expect.poll(() => lines.some((line) => line.includes('Ops Console:')), { timeout: 15_000 }).toBe(true);
  return lines.find((line) => line.includes('Ops Console:'))!;
}

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ops-console-plugin-'));
  await mkdir(path.join(root, 'dist', 'assets'), { recursive: true });
  const html = '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>';
  await writeFile(path.join(root, 'index.html'), html);
  await writeFile(path.join(root, 'dist', 'index.html'), html);
  await writeFile(path.join(root, 'dist', 'assets', 'app.js'), 'console.log("app");\n');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function startPreview(env: NodeJS.ProcessEnv, logger: Logger): Promise<PreviewServer> {
  return preview({
    configFile: false,
    root,
    customLogger: logger,
    plugins: [opsConsole({ env })],
    preview: { host: '127.0.0.1', port: 0, open: false },
  });
}

describe('npm start (vite preview) on the simulator', () => {
  const { logger, lines } = capturingLogger();
  let server: PreviewServer;
  let port: number;

  beforeAll(async () => {
    server = await startPreview({ SIM_API_KEY: KEY }, logger);
    port = portOf(server);
  });
  afterAll(() => server.close());

  it('prints the console URL, the mode and the demo key once listening', async () => {
    const banner = await bannerOf(lines);

    expect(banner).toContain(`http://127.0.0.1:${port}/`);
    expect(banner).toMatch(/simulator/i);
    expect(banner).toContain(`Demo API key: ${KEY}`);
  });

  it.each([
    ['the app page', '/'],
    ['a deep link (served index.html)', '/projects/p-1/operations/op-1'],
    ['an asset', '/assets/app.js'],
    ['a missing asset', '/assets/missing.js'],
    ['the API', '/api/v2/projects'],
  ])('puts the CSP and security headers on %s', async (_name, urlPath) => {
    const response = await rawRequest(port, { path: urlPath, headers: { ...auth, accept: '*/*' } });

    expect(response.headers).toMatchObject({ ...SECURITY_HEADERS, 'content-security-policy': CONTENT_SECURITY_POLICY });
  });

  it('serves index.html on a deep link reload', async () => {
    const response = await rawRequest(port, { path: '/projects/p-1/operations/op-1', headers: { accept: 'text/html' } });

    expect(response.status).toBe(200);
    expect(response.body).toContain('<div id="root">');
  });

  it('answers /api/v2 from the seeded simulator, never cached', async () => {
    const response = await rawRequest(port, { path: '/api/v2/projects', headers: auth });

    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect((JSON.parse(response.body) as { projects: unknown[] }).projects.length).toBeGreaterThan(0);
  });

  it('answers an unknown API path with a JSON 404, not the app page', async () => {
    const response = await rawRequest(port, { path: '/api/v2/nothing/here', headers: { ...auth, accept: 'text/html' } });

    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: '', message: expect.any(String) as string });
  });

  it('has no fault control without SIM_FAULTS=1: a plain 404, not the app page', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await rawRequest(port, { method, path: '/__sim/faults', headers: { accept: 'text/html', 'content-type': 'application/json' }, body: '{"rules":[]}' });
      expect(response.status, method).toBe(404);
      expect(response.body).not.toContain('<div id="root">');
    }
    expect(await bannerOf(lines)).not.toContain('Fault injection');
  });

  it('keeps the policy the design asks for', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });
});

describe('npm start with API_URL', () => {
  const { logger, lines } = capturingLogger();
  const upstreamSaw: string[] = [];
  const upstream = http.createServer((req, res) => {
    upstreamSaw.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"projects":[]}');
  });
  let apiUrl: string;
  let server: PreviewServer;

  beforeAll(async () => {
    apiUrl = `http://127.0.0.1:${await listen(upstream)}/api/v2`;
    server = await startPreview({ API_URL: apiUrl, SIM_API_KEY: KEY, SIM_FAULTS: '1' }, logger);
  });
  afterAll(async () => {
    await server.close();
    await close(upstream);
  });

  it('forwards to API_URL, mounts no simulator, and says so in the banner', async () => {
    const response = await rawRequest(portOf(server), { path: '/api/v2/projects?limit=1', headers: auth });

    expect(response.status).toBe(200);
    expect(response.body).toBe('{"projects":[]}');
    expect(response.headers).toMatchObject({ ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    expect(upstreamSaw).toEqual(['GET /api/v2/projects?limit=1']);
    const banner = await bannerOf(lines);
    expect(banner).toContain(`Forwarding /api/v2 to ${apiUrl}`);
    expect(banner).not.toContain('Demo API key');
  });

  it('never mounts the fault control in front of a real API, even with SIM_FAULTS=1', async () => {
    const response = await rawRequest(portOf(server), { path: '/__sim/faults' });

    expect(response.status).toBe(404);
    expect(upstreamSaw.filter((line) => line.includes('__sim'))).toEqual([]);
  });

  it('refuses to start with an API_URL that is not an http(s) URL', async () => {
    await expect(startPreview({ API_URL: 'file:///etc/passwd' }, capturingLogger().logger)).rejects.toThrow(/API_URL/);
  });
});

describe('npm start with SIM_FAULTS=1 (the browser tests)', () => {
  const { logger, lines } = capturingLogger();
  let server: PreviewServer;
  let port: number;

  beforeAll(async () => {
    server = await startPreview({ SIM_API_KEY: KEY, SIM_FAULTS: '1' }, logger);
    port = portOf(server);
  });
  afterAll(() => server.close());

  it('mounts the fault control without an API key, and its plan reaches the API', async () => {
    const plan = { rules: [{ fault: { type: 'status', status: 503 }, path: '/projects', count: 1 }] };
    const put = await rawRequest(port, { method: 'PUT', path: '/__sim/faults', headers: { 'content-type': 'application/json' }, body: JSON.stringify(plan) });
    expect(put.status).toBe(200);
    expect(put.headers['cache-control']).toBe('no-store');

    expect((await rawRequest(port, { path: '/api/v2/projects', headers: auth })).status).toBe(503);
    expect((await rawRequest(port, { path: '/api/v2/projects', headers: auth })).status).toBe(200);
    expect(await bannerOf(lines)).toContain('Fault injection: /__sim/faults');
  });
});

describe('npm run dev', () => {
  const { logger, lines } = capturingLogger();
  let server: ViteDevServer;

  beforeAll(async () => {
    server = await createServer({
      configFile: false,
      root,
      customLogger: logger,
      plugins: [opsConsole({ env: { SIM_API_KEY: KEY } })],
      server: { host: '127.0.0.1', port: 0, hmr: false, watch: null },
      optimizeDeps: { noDiscovery: true },
    });
    await server.listen();
  });
  afterAll(() => server.close());

  it('sets the security headers without the CSP (HMR needs inline scripts) and mounts the simulator', async () => {
    const port = portOf(server);
    const page = await rawRequest(port, { path: '/', headers: { accept: 'text/html' } });
    const api = await rawRequest(port, { path: '/api/v2/projects', headers: auth });

    expect(page.headers).toMatchObject(SECURITY_HEADERS);
    expect(page.headers['content-security-policy']).toBeUndefined();
    expect(api.status).toBe(200);
    expect(api.headers).toMatchObject({ ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    expect(await bannerOf(lines)).toContain(`Demo API key: ${KEY}`);
  });

  it('always mounts the fault control', async () => {
    const response = await rawRequest(portOf(server), { path: '/__sim/faults' });

    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ rules: [], injected: 0 });
  });
});

describe('a server that never listens (how vitest loads vite.config.ts)', () => {
  it('prints nothing', async () => {
    const { logger, lines } = capturingLogger();
    const server = await createServer({
      configFile: false,
      root,
      customLogger: logger,
      plugins: [opsConsole({ env: { SIM_API_KEY: KEY } })],
      server: { middlewareMode: true, hmr: false, watch: null },
      optimizeDeps: { noDiscovery: true },
    });
    await server.close();

    expect(lines.filter((line) => line.includes('Ops Console') || line.includes(KEY))).toEqual([]);
  });
});
