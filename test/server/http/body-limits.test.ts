import http from 'node:http';
import { KEEP_ALIVE_MS } from '../../../server/http/listen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen, rawRequest } from '../http-helpers';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// Every body the server reads has a limit, and a body past it is the client's problem: 413 with the limit
// named, never a 500 or an empty "Internal error:" line in the log, and the answer reaches a client that
// is still sending (the rest of the body is read and dropped, not left to reset the connection).

const KEY = 'body-limit-test-key-00000000000000';
const json = { 'content-type': 'application/json', accept: 'application/json' };

function expect413(response: { status: number; body: string }, limit: RegExp) {
  expect(response.status).toBe(413);
  expect(JSON.parse(response.body)).toMatchObject({ message: expect.stringMatching(limit) as string });
}

afterAll(() => removeTestClientDir());

describe('bodies over the limit on the simulator', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY });
  });
  afterAll(() => server.stop());

  it.each([
    ['just over 16 KiB', 16 * 1024 + 1],
    ['1 MB', 1_000_000],
    ['8 MB', 8_000_000],
  ])('answers POST /session with %s of JSON with 413', async (_name, size) => {
    const response = await server.request({ method: 'POST', path: '/session', headers: json, body: JSON.stringify({ key: 'k'.repeat(size) }) });

    expect413(response, /more than 16 KiB/);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(server.logged).toEqual([]);
  });

  it('answers a form sign-in over 16 KiB sent in chunks (no Content-Length) with 413', async () => {
    const response = await server.request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' },
      body: new URLSearchParams({ 'api-key': KEY, 'return-to': `/${'x'.repeat(20_000)}` }).toString(),
    });

    expect413(response, /more than 16 KiB/);
    expect(server.logged).toEqual([]);
  });

  it('answers an API write over 1 MiB sent in chunks with 413, and the connection serves the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: server.port,
            method: 'POST',
            path: '/api/v2/api_keys',
            agent,
            headers: { ...json, authorization: `Bearer ${KEY}`, 'transfer-encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 24; i += 1) req.write('x'.repeat(64 * 1024));
        req.end();
      });
      expect(big).toBe(413);
      const next = await new Promise<{ status: number; keepAlive: string | undefined }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: server.port, path: '/healthz', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, keepAlive: res.headers['keep-alive']?.toString() }));
          })
          .on('error', reject);
      });
      expect(next.status).toBe(200);
      // An idle connection outlives a proxy's (60 s on most), so a client never reuses one the server is closing.
      expect(next.keepAlive).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
      expect(server.logged).toEqual([]);
    } finally {
      agent.destroy();
    }
  });
});

describe('bodies over the limit in front of a real API', () => {
  const upstreamSaw: string[] = [];
  const upstream = http.createServer((req, res) => {
    upstreamSaw.push(`${req.method ?? ''} ${req.url ?? ''}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ API_URL: `http://127.0.0.1:${await listen(upstream)}/api/v2` });
  });
  afterAll(async () => {
    await server.stop();
    await close(upstream);
  });

  it.each([
    ['with its length declared', {}],
    ['in chunks', { 'transfer-encoding': 'chunked' }],
  ])('answers a proxied write over 1 MiB %s with 413 and never forwards it', async (_name, extra) => {
    const response = await rawRequest(server.port, {
      method: 'POST',
      path: '/api/v2/projects',
      headers: { ...json, authorization: `Bearer ${KEY}`, ...extra },
      body: JSON.stringify({ project: { name: 'x'.repeat(1024 * 1024) } }),
    });

    expect413(response, /more than 1 MiB/);
    expect(upstreamSaw).toEqual([]);
    expect(server.logged).toEqual([]);
  });
});
