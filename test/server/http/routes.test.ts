import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_ENV_DEFAULTED } from '../../../server/config';
import { CONTENT_SECURITY_POLICY } from '../../../server/http/security-headers';
import { close, listen } from '../http-helpers';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// The console's own server (`npm start`), in process over a tiny built client: banner, headers on every
// response, static files, pages with their data block, /healthz, the API mount and the fault control.

const KEY = 'server-test-key-0000000000000000';
const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'x-robots-tag': 'noindex, nofollow',
};

afterAll(() => removeTestClientDir());

describe('npm start on the simulator', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY });
  });
  afterAll(() => server.stop());

  it('prints the console URL, the mode and the demo key once listening, and no session secret', () => {
    const banner = server.printed.join('\n');
    expect(banner).toContain(`Ops Console: http://127.0.0.1:${server.port}/`);
    expect(banner).toMatch(/simulator/i);
    expect(banner).toContain(`Demo API key: ${KEY}`);
    expect(banner).toContain('SESSION_SECRET');
    expect(banner).not.toContain('Fault injection');
  });

  it.each([
    ['the app page', '/'],
    ['a deep link', '/projects/p-1/operations/op-1'],
    ['an asset', '/assets/app-abc123.js'],
    ['a missing asset', '/assets/missing.js'],
    ['the API', '/api/v2/projects'],
    ['the session', '/session'],
    ['the health check', '/healthz'],
    ['the fault control', '/__sim/faults'],
  ])('puts the CSP and security headers on %s', async (_name, urlPath) => {
    const response = await server.request({ path: urlPath, headers: { ...auth, accept: '*/*' } });

    expect(response.headers).toMatchObject(SECURITY_HEADERS);
  });

  it('serves a deep link as the app page with a signed-out data block, never cached', async () => {
    const response = await server.request({ path: '/projects/p-1/operations/op-1', headers: { accept: 'text/html' } });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('<div id="root">');
    expect(response.body).toContain(
      '<script type="application/json" id="ops-console-data">{"session":{"signedIn":false,"fingerprint":null,"keyKind":null,"remembered":false}}</script></head>',
    );
  });

  it('serves hashed assets precompressed by Accept-Encoding, immutable for a year', async () => {
    const brotli = await server.request({ path: '/assets/app-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    const gzip = await server.request({ path: '/assets/app-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    const plain = await server.request({ path: '/assets/app-abc123.js' });

    expect([brotli.body, brotli.headers['content-encoding']]).toEqual(['BROTLI', 'br']);
    expect([gzip.body, gzip.headers['content-encoding']]).toEqual(['GZIP', 'gzip']);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('console.log');
    for (const response of [brotli, gzip, plain]) {
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(response.headers['content-type']).toMatch(/javascript/);
    }
  });

  it('revalidates files that are not hashed, and never serves index.html as a file', async () => {
    const icon = await server.request({ path: '/favicon.svg' });
    const index = await server.request({ path: '/index.html' });

    expect(icon.headers['cache-control']).toBe('no-cache');
    expect(index.headers['cache-control']).toBe('no-store');
    expect(index.body).toContain('ops-console-data');
  });

  it('answers a missing asset with 404, not the app page', async () => {
    const response = await server.request({ path: '/assets/missing.js' });

    expect(response.status).toBe(404);
    expect(response.body).not.toContain('<div id="root">');
  });

  it('asks search engines to index nothing: /robots.txt disallows every path', async () => {
    const response = await server.request({ path: '/robots.txt' });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('User-agent: *\nDisallow: /\n');
    expect(response.headers['x-robots-tag']).toBe('noindex, nofollow');
  });

  it('answers /healthz without a session', async () => {
    const response = await server.request({ path: '/healthz' });

    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers /api/v2 from the seeded simulator with a key of its own, never cached', async () => {
    const response = await server.request({ path: '/api/v2/projects', headers: auth });

    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect((JSON.parse(response.body) as { projects: unknown[] }).projects.length).toBeGreaterThan(0);
  });

  it('answers /api/v2 without a key or session with 401 of its own', async () => {
    const response = await server.request({ path: '/api/v2/projects', headers: { accept: 'application/json' } });

    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'not_signed_in', message: expect.stringContaining('Not signed in') as string });
  });

  it('answers an unknown API path with a JSON 404, not the app page', async () => {
    const response = await server.request({ path: '/api/v2/nothing/here', headers: { ...auth, accept: 'text/html' } });

    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: '', message: expect.any(String) as string });
  });

  it('has no fault control without SIM_FAULTS=1: a plain 404, not the app page', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const body = method === 'PUT' ? '{"rules":[]}' : undefined;
      const response = await server.request({ method, path: '/__sim/faults', headers: { accept: 'text/html', 'content-type': 'application/json' }, body });
      expect(response.status, method).toBe(404);
      expect(response.body).not.toContain('<div id="root">');
    }
  });

  it('keeps the policy the design asks for', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it('refuses a taken port instead of picking another', async () => {
    await expect(startTestServer({ PORT: String(server.port) })).rejects.toThrow(/already in use/);
  });
});

describe('npm start with API_URL', () => {
  const upstreamSaw: string[] = [];
  const upstream = http.createServer((req, res) => {
    upstreamSaw.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"projects":[]}');
  });
  let apiUrl: string;
  let server: TestServer;

  beforeAll(async () => {
    apiUrl = `http://127.0.0.1:${await listen(upstream)}/api/v2`;
    server = await startTestServer({ API_URL: apiUrl, SIM_API_KEY: KEY, SIM_FAULTS: '1' });
  });
  afterAll(async () => {
    await server.stop();
    await close(upstream);
  });

  it('forwards to API_URL, mounts no simulator, and says so in the banner', async () => {
    const response = await server.request({ path: '/api/v2/projects?limit=1', headers: auth });

    expect(response.status).toBe(200);
    expect(response.body).toBe('{"projects":[]}');
    expect(response.headers).toMatchObject({ ...SECURITY_HEADERS, 'cache-control': 'no-store' });
    expect(upstreamSaw).toEqual(['GET /api/v2/projects?limit=1']);
    const banner = server.printed.join('\n');
    expect(banner).toContain(`Forwarding /api/v2 to ${apiUrl}`);
    expect(banner).not.toContain('Demo API key');
  });

  it('tells every page which API it forwards to, as it runs now (not as the client was built)', async () => {
    const page = await server.request({ path: '/', headers: { accept: 'text/html' } });

    expect(page.body).toContain(`"apiUrl":"${apiUrl}"`);
  });

  it('never mounts the fault control in front of a real API, even with SIM_FAULTS=1', async () => {
    const response = await server.request({ path: '/__sim/faults' });

    expect(response.status).toBe(404);
    expect(upstreamSaw.filter((line) => line.includes('__sim'))).toEqual([]);
  });

  it('refuses to start with an API_URL that is not an http(s) URL, or a short SESSION_SECRET', async () => {
    await expect(startTestServer({ API_URL: 'file:///etc/passwd' })).rejects.toThrow(/API_URL/);
    await expect(startTestServer({ SESSION_SECRET: 'too-short' })).rejects.toThrow(/SESSION_SECRET must be at least 32/);
  });

  it('refuses to start a deployment (DATABASE_URL, or the operator’s NODE_ENV=production) without SESSION_SECRET, saying why', async () => {
    await expect(startTestServer({ DATABASE_URL: 'postgres://db.invalid/console', SESSION_SECRET: '' })).rejects.toThrow(
      /SESSION_SECRET must be set when DATABASE_URL is set .*DATA_DIR/,
    );
    await expect(startTestServer({ NODE_ENV: 'production', SESSION_SECRET: '' })).rejects.toThrow(/SESSION_SECRET must be set when NODE_ENV=production/);
    // `npm start`'s own default (for React's build) is not a deployment: the embedded demo keeps its secret in DATA_DIR.
    const demo = await startTestServer({ NODE_ENV: 'production', [NODE_ENV_DEFAULTED]: '1', SESSION_SECRET: '' });
    await demo.stop();
  });
});

describe('npm start with SIM_FAULTS=1 (the browser tests)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY, SIM_FAULTS: '1' });
  });
  afterAll(() => server.stop());

  it('mounts the fault control without an API key, and its plan reaches the API', async () => {
    const plan = { rules: [{ fault: { type: 'status', status: 503 }, path: '/projects', count: 1 }] };
    const put = await server.request({ method: 'PUT', path: '/__sim/faults', headers: { 'content-type': 'application/json' }, body: JSON.stringify(plan) });
    expect(put.status).toBe(200);
    expect(put.headers['cache-control']).toBe('no-store');

    expect((await server.request({ path: '/api/v2/projects', headers: auth })).status).toBe(503);
    expect((await server.request({ path: '/api/v2/projects', headers: auth })).status).toBe(200);
    expect(server.printed.join('\n')).toContain(`Fault injection: http://127.0.0.1:${server.port}/__sim/faults`);
  });
});
