import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { close, listen } from '../http-helpers';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// The proxy as `npm start` mounts it (the console's server): request targets and headers that try to
// steer it elsewhere reach neither another host nor a path outside API_URL.

const KEY = 'served-proxy-test-key-000000000000';

function recorder() {
  const saw: string[] = [];
  const server = http.createServer((req, res) => {
    saw.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"projects":[]}');
  });
  return { saw, server };
}

const upstream = recorder();
const evil = recorder();
let evilHost: string;
let server: TestServer;

beforeAll(async () => {
  const upstreamPort = await listen(upstream.server);
  evilHost = `127.0.0.1:${await listen(evil.server)}`;
  server = await startTestServer({ API_URL: `http://127.0.0.1:${upstreamPort}/base/api/v2` });
});

afterAll(async () => {
  await server.stop();
  await Promise.all([close(upstream.server), close(evil.server)]);
  await removeTestClientDir();
});

beforeEach(() => {
  upstream.saw.length = 0;
  evil.saw.length = 0;
});

describe('npm start with API_URL, steered elsewhere', () => {
  const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };

  it.each([
    ['an absolute-form target', () => `http://${evilHost}/api/v2/projects`],
    ['a protocol-relative target', () => `//${evilHost}/api/v2/projects`],
    ['userinfo after the prefix', () => `/api/v2@${evilHost}/projects`],
    ['a backslash authority', () => `/api/v2\\\\${evilHost}/projects`],
    ['traversal out of the base', () => '/api/v2/../../admin'],
    ['encoded traversal out of the base', () => '/api/v2/%2e%2e/%2e%2e/admin'],
  ])('reaches no other host and no path outside the base with %s', async (_name, target) => {
    const response = await server.request({ path: target(), headers: auth });

    expect(evil.saw).toEqual([]);
    expect(upstream.saw).toEqual([]);
    // Not forwarded: either refused by the proxy or not an API path at all (the app page).
    expect([400, 404, 200]).toContain(response.status);
    if (response.status === 200) expect(response.body).toContain('<div id="root">');
  });

  it('takes the target from API_URL alone, whatever Host and X-Forwarded-* say', async () => {
    const response = await server.request({
      path: '/api/v2/projects?limit=1',
      headers: { ...auth, host: evilHost, 'x-forwarded-host': evilHost, 'x-forwarded-proto': 'http', forwarded: `host=${evilHost}` },
    });

    expect(response.status).toBe(200);
    expect(evil.saw).toEqual([]);
    expect(upstream.saw).toEqual(['GET /base/api/v2/projects?limit=1']);
  });
});
