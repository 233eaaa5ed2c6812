import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEY_REJECTED_CODE, KEY_REJECTED_MESSAGE, sessionEndOfCode } from '../../../src/config/session';
import { close, closedPort, listen, type RawResponse } from '../http-helpers';
import { parseSetCookie, removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// The session held by the server (backend for frontend), over real sockets: signing in by JSON and by a
// plain form post, the cookie's attributes, the key added to forwarded calls and never shown to the page,
// a 401 and sign-out ending it, the cross-site rules, and the bounce that lets a link from elsewhere open signed in.

const KEY = 'session-test-key-0000000000000000';

function setCookieOf(response: RawResponse): ReturnType<typeof parseSetCookie> {
  const header = response.headers['set-cookie'];
  expect(header, 'a Set-Cookie header').toHaveLength(1);
  return parseSetCookie(header![0]!);
}

async function signIn(server: TestServer, key = KEY, remember = false): Promise<{ response: RawResponse; cookie: string }> {
  const response = await server.request({
    method: 'POST',
    path: '/session',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: `http://127.0.0.1:${server.port}` },
    body: JSON.stringify({ key, remember }),
  });
  const set = response.headers['set-cookie']?.[0];
  return { response, cookie: set ? set.split(';')[0]! : '' };
}

afterAll(() => removeTestClientDir());

describe('a session on the simulator', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SIM_API_KEY: KEY });
  });
  afterAll(() => server.stop());

  it('starts once the key checks out: an HttpOnly, SameSite=Strict, Secure __Host- cookie for the browser session', async () => {
    const { response } = await signIn(server);

    expect(response.status).toBe(200);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body).toEqual({ signedIn: true, fingerprint: expect.stringMatching(/^[\w-]{32}$/) as string, keyKind: 'personal', remembered: false });
    const cookie = setCookieOf(response);
    expect(cookie.name).toBe('__Host-ops_session');
    expect([...cookie.attributes.keys()].sort()).toEqual(['httponly', 'path', 'samesite', 'secure']);
    expect(cookie.attributes.get('path')).toBe('/');
    expect(cookie.attributes.get('samesite')).toBe('Strict');
    // Neither the key nor any plain encoding or hash of it is in the cookie or the answer.
    const sha = createHash('sha256').update(KEY).digest();
    for (const form of [KEY, Buffer.from(KEY).toString('base64url'), sha.toString('hex'), sha.toString('base64url')]) {
      expect(cookie.value).not.toContain(form);
      expect(response.body).not.toContain(form);
    }
  });

  it('keeps a remembered session for 30 days, and only then sets Max-Age', async () => {
    const { response } = await signIn(server, KEY, true);

    expect(setCookieOf(response).attributes.get('max-age')).toBe(String(30 * 24 * 3600));
    expect(JSON.parse(response.body)).toMatchObject({ remembered: true });
  });

  it('adds the key to /api/v2 calls on the server, and tells the page only a fingerprint', async () => {
    const { cookie, response } = await signIn(server);
    const { fingerprint } = JSON.parse(response.body) as { fingerprint: string };

    const projects = await server.request({ path: '/api/v2/projects?limit=1', headers: { cookie, accept: 'application/json' } });
    const page = await server.request({ path: '/projects/p-1', headers: { cookie, accept: 'text/html' } });
    const session = await server.request({ path: '/session', headers: { cookie } });

    expect(projects.status).toBe(200);
    expect(page.body).toContain(`{"session":{"signedIn":true,"fingerprint":"${fingerprint}","keyKind":"personal","remembered":false}}`);
    expect(JSON.parse(session.body)).toMatchObject({ signedIn: true, fingerprint });
    for (const answer of [projects, page, session]) expect(answer.body).not.toContain(KEY);
  });

  it('gives one key the same fingerprint in every session, and another key another', async () => {
    const first = JSON.parse((await signIn(server)).response.body) as { fingerprint: string };
    const second = JSON.parse((await signIn(server)).response.body) as { fingerprint: string };
    const created = JSON.parse(
      (
        await server.request({
          method: 'POST',
          path: '/api/v2/api_keys',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: '{"key_name":"other"}',
        })
      ).body,
    ) as { key: string };
    const other = JSON.parse((await signIn(server, created.key)).response.body) as { fingerprint: string };

    expect(second.fingerprint).toBe(first.fingerprint);
    expect(other.fingerprint).not.toBe(first.fingerprint);
  });

  it('rejects a wrong key with 401 and no cookie', async () => {
    const { response } = await signIn(server, `${KEY}-typo`);

    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'rejected', message: 'This key was rejected (invalid or revoked).' });
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('says what is wrong with a key holding a non-ASCII character instead of sending it on', async () => {
    const { response } = await signIn(server, 'clé-de-démo');

    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'invalid', message: expect.stringContaining('“é” (U+00E9)') as string });
  });

  it('signs out: expires the cookie, and the old cookie opens nothing on this server any more', async () => {
    const { cookie } = await signIn(server);
    const out = await server.request({ method: 'POST', path: '/session/sign-out', headers: { cookie, accept: 'application/json' } });

    expect(out.status).toBe(200);
    const expired = setCookieOf(out);
    expect([expired.name, expired.value, expired.attributes.get('max-age')]).toEqual(['__Host-ops_session', '', '0']);
    const replayed = await server.request({ path: '/api/v2/projects', headers: { cookie } });
    expect(replayed.status).toBe(401);
    expect(JSON.parse(replayed.body)).toMatchObject({ code: 'session_signed_out', message: 'Your session ended: it was signed out. Sign in again.' });
    expect(setCookieOf(replayed).attributes.get('max-age')).toBe('0');
  });

  it('ends the session when the API answers 401 (a revoked key), and expires the cookie with that answer', async () => {
    const created = JSON.parse(
      (
        await server.request({
          method: 'POST',
          path: '/api/v2/api_keys',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: '{"key_name":"soon revoked"}',
        })
      ).body,
    ) as { id: number; key: string };
    const { cookie } = await signIn(server, created.key);
    expect((await server.request({ path: '/api/v2/projects', headers: { cookie } })).status).toBe(200);
    await server.request({ method: 'DELETE', path: `/api/v2/api_keys/${created.id}`, headers: { authorization: `Bearer ${KEY}` } });

    const refused = await server.request({ path: '/api/v2/projects', headers: { cookie } });
    expect(refused.status).toBe(401);
    expect(setCookieOf(refused).attributes.get('max-age')).toBe('0');
    expect((await server.request({ path: '/session', headers: { cookie } })).body).toContain('"signedIn":false');

    // A request the page sent alongside (or after) meets the ended session: it is told the key was refused,
    // as the first one was, never that the person signed out; so is a page loaded with the old cookie.
    const alongside = await server.request({ path: '/api/v2/projects/p-1/operations', headers: { cookie } });
    expect(alongside.status).toBe(401);
    expect(JSON.parse(alongside.body)).toMatchObject({ code: KEY_REJECTED_CODE, message: KEY_REJECTED_MESSAGE });
    expect(sessionEndOfCode(KEY_REJECTED_CODE), 'the page reads it as the API’s own refusal').toBeUndefined();
    const page = await server.request({ path: '/', headers: { cookie } });
    expect(page.body).toContain('"sessionEnded":"rejected"');
  });

  it('refuses a tampered cookie or one sealed under another secret, and expires it', async () => {
    const { cookie } = await signIn(server);
    const [name, value] = cookie.split('=') as [string, string];
    // One character of the sealed value changed (the one before the last), to another: never to itself.
    const changed = value.at(-2) === 'A' ? 'B' : 'A';
    const flipped = `${name}=${value.slice(0, -2)}${changed}${value.slice(-1)}`;
    const other = await startTestServer({ SIM_API_KEY: KEY, SESSION_SECRET: 'another-secret-that-is-long-enough-0000' });
    try {
      for (const [what, port, sent] of [
        ['tampered', server.port, flipped],
        ['another secret', other.port, cookie],
      ] as const) {
        const response = await (port === server.port ? server : other).request({ path: '/api/v2/projects', headers: { cookie: sent } });
        expect(response.status, what).toBe(401);
        expect(setCookieOf(response).attributes.get('max-age'), what).toBe('0');
      }
    } finally {
      await other.stop();
    }
  });

  it('signs in from a plain form post (no script yet): 303 back to the page it came from', async () => {
    const response = await server.request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${server.port}` },
      body: new URLSearchParams({ 'api-key': KEY, 'return-to': '/projects/p-1?status=failed', remember: 'on' }).toString(),
    });

    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/projects/p-1?status=failed');
    expect(setCookieOf(response).attributes.get('max-age')).toBe(String(30 * 24 * 3600));
  });

  it.each(['/.//evil.example', '/..//evil.example/steal', '/%2e//evil.example'])(
    'answers a form sign-in returning to %s with a 303 that stays on this origin',
    async (returnTo) => {
      const response = await server.request({
        method: 'POST',
        path: '/session',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://127.0.0.1:${server.port}` },
        body: new URLSearchParams({ 'api-key': KEY, 'return-to': returnTo }).toString(),
      });

      expect(response.status).toBe(303);
      expect(response.headers.location).toMatch(/^\/(?![/\\])/);
      expect(new URL(response.headers.location!, 'http://console.invalid').origin).toBe('http://console.invalid');
    },
  );

  it('answers a form post with a wrong key with the page, its data block saying why, and never sends the browser elsewhere', async () => {
    const response = await server.request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'api-key': 'wrong', 'return-to': '//evil.example/steal' }).toString(),
    });

    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('"signIn":{"problem":{"kind":"rejected","message":"This key was rejected (invalid or revoked)."');
    expect(response.body).toContain('"returnTo":"/"');
  });

  describe('cross-site requests', () => {
    it.each([
      ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site: same-site (a sibling host)', { 'sec-fetch-site': 'same-site' }],
      ['a foreign Origin', { origin: 'https://evil.example' }],
      ['an opaque Origin', { origin: 'null' }],
    ])('refuses a write with %s with 403, the session cookie notwithstanding', async (_name, headers) => {
      const { cookie } = await signIn(server);
      const before = (JSON.parse((await server.request({ path: '/api/v2/api_keys', headers: { cookie } })).body) as unknown[]).length;
      for (const [method, path] of [
        ['POST', '/api/v2/api_keys'],
        ['DELETE', '/api/v2/api_keys/1'],
        ['POST', '/session/sign-out'],
        ['POST', '/session'],
      ] as const) {
        // Node's client sends a DELETE body with neither length nor chunking: only POST gets one.
        const body = method === 'POST' ? '{"key_name":"csrf","key":"x"}' : undefined;
        const response = await server.request({ method, path, headers: { cookie, 'content-type': 'application/json', ...headers }, body });
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(response.headers['set-cookie'], `${method} ${path}`).toBeUndefined();
      }
      const after = (JSON.parse((await server.request({ path: '/api/v2/api_keys', headers: { cookie } })).body) as unknown[]).length;
      expect(after).toBe(before);
    });

    it('lets a same-origin write through', async () => {
      const { cookie } = await signIn(server);
      const response = await server.request({
        method: 'POST',
        path: '/api/v2/api_keys',
        headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', origin: `http://127.0.0.1:${server.port}` },
        body: '{"key_name":"same-origin"}',
      });
      expect(response.status).toBe(200);
    });

    it('bounces a navigation from another site through this origin so the cookie comes along, once', async () => {
      const navigate = { accept: 'text/html', 'sec-fetch-mode': 'navigate' };
      const bounce = await server.request({ path: '/projects/p-1/operations/op-1?status=failed', headers: { ...navigate, 'sec-fetch-site': 'cross-site' } });
      const arrived = await server.request({ path: '/projects/p-1/operations/op-1?status=failed', headers: { ...navigate, 'sec-fetch-site': 'same-origin' } });

      expect(bounce.status).toBe(200);
      expect(bounce.headers['cache-control']).toBe('no-store');
      expect(bounce.body).toContain('<meta http-equiv="refresh" content="0;url=/projects/p-1/operations/op-1?status=failed">');
      expect(bounce.body).not.toContain('<script');
      expect(arrived.body).toContain('ops-console-data');
      expect(arrived.body).not.toContain('http-equiv="refresh"');
    });

    it('never bounces to another host', async () => {
      const bounce = await server.request({ path: '//evil.example/x', headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });

      expect(bounce.body).toContain('content="0;url=/"');
    });

    it.each(['/.//evil.example', '/a/..//evil.example/x', '/%2e//evil.example'])(
      'never bounces %s to another host once its dot segments are resolved',
      async (path) => {
        const bounce = await server.request({ path, headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });

        const target = /content="0;url=([^"]*)"/.exec(bounce.body)?.[1] ?? '';
        expect(target).toMatch(/^\/(?![/\\])/);
        expect(bounce.body).not.toContain('//evil.example');
      },
    );
  });
});

describe('a session with API_URL', () => {
  const seen: { url: string; authorization: string | undefined; cookie: string | undefined }[] = [];
  let reply: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  const upstream = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization, cookie: req.headers.cookie });
    reply(req, res);
  });
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ API_URL: `http://127.0.0.1:${await listen(upstream)}/api/v2` });
  });
  afterAll(async () => {
    await server.stop();
    await close(upstream);
  });
  beforeEach(() => {
    seen.length = 0;
    reply = (req, res) => {
      const body = req.url === '/api/v2/auth' ? { account_id: 'u-1', auth_method: 'api_key_org' } : { projects: [] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
  });

  it('checks the key with GET /auth, then sends it as Authorization and never the cookie', async () => {
    const { cookie, response } = await signIn(server);
    expect(JSON.parse(response.body)).toMatchObject({ keyKind: 'organization' });
    await server.request({ path: '/api/v2/projects', headers: { cookie } });

    expect(seen).toEqual([
      { url: '/api/v2/auth', authorization: `Bearer ${KEY}`, cookie: undefined },
      { url: '/api/v2/projects', authorization: `Bearer ${KEY}`, cookie: undefined },
    ]);
  });

  it('ends the session when the API refuses the key, passing the API’s own 401 on with the expired cookie', async () => {
    const { cookie } = await signIn(server);
    reply = (_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":"","message":"authentication required"}');

    const refused = await server.request({ path: '/api/v2/projects', headers: { cookie } });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({ code: '', message: 'authentication required' });
    expect(setCookieOf(refused).attributes.get('max-age')).toBe('0');
    expect((await server.request({ path: '/session', headers: { cookie } })).body).toContain('"signedIn":false');
    // The API is asked nothing more with that cookie: the server answers for itself.
    const after = seen.length;
    expect((await server.request({ path: '/api/v2/projects', headers: { cookie } })).status).toBe(401);
    expect(seen).toHaveLength(after);
  });

  it('lets a sign-in waiting on a hanging API be cancelled: closing the request ends the check', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    reply = (req) => req.socket.once('close', upstreamClosed);
    const controller = new AbortController();
    const pending = fetch(`http://127.0.0.1:${server.port}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: KEY }),
      signal: controller.signal,
    });
    await expect.poll(() => seen.length).toBe(1);
    controller.abort();

    await expect(pending).rejects.toThrow();
    await closed;
  });
});

describe('a sign-in when API_URL cannot be reached', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ API_URL: `http://127.0.0.1:${await closedPort()}/api/v2` });
  });
  afterAll(() => server.stop());

  it('names the cause to the page and in the server log, and neither shows the key', async () => {
    const { response } = await signIn(server);

    expect(response.status).toBe(502);
    const body = JSON.parse(response.body) as { code: string; message: string };
    expect(body.code).toBe('unreachable');
    expect(body.message).toMatch(/^Could not reach the API at 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\. The key was not checked\.$/);
    expect(server.logged).toEqual([
      expect.stringMatching(/^Could not reach the API at 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\. \(GET \/api\/v2\/auth\)$/),
    ]);
    expect([response.body, ...server.logged, ...server.printed].join('\n')).not.toContain(KEY);
  });
});
