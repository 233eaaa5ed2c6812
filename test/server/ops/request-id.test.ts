import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { close, listen } from '../http-helpers';
import { startTestServer, type LogLine, type TestServer } from '../start-test-server';

// docs/operations.md, "Request ids": a request's id (the caller's X-Request-ID when it looks like one, else one
// made) is in the answer, goes to the API with every call made for it (the page's own, and the server's reads,
// such as sign-in's key check), is the request_id of the console's own error bodies, and names the request's
// JSON log line, which also names the API's own id when the API refused. The console here forwards to an API
// of the test's (API_URL), which records what it was sent.

const KEY = 'request-id-test-key-0000000000000000';

interface Seen {
  path: string;
  requestId: string | undefined;
}

const seen: Seen[] = [];
let reply: (req: http.IncomingMessage, res: http.ServerResponse) => void = () => undefined;
const upstream = http.createServer((req, res) => {
  seen.push({ path: req.url ?? '', requestId: req.headers['x-request-id'] as string | undefined });
  reply(req, res);
});

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ API_URL: `http://127.0.0.1:${await listen(upstream)}/api/v2`, SESSION_SECRET: 'request-id-test-session-secret-000000000' });
});
afterAll(async () => {
  // The shutdown test stops it as SIGTERM would.
  if (!server.running.drain.draining) await server.stop();
  await close(upstream);
});
beforeEach(() => {
  seen.length = 0;
  reply = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"projects":[]}');
});

/** The request's line in the log: the one with its id and the request event. */
function requestLine(id: string): LogLine | undefined {
  return server.lines.find((line) => line.event === 'request' && line.request_id === id);
}

const api = (path: string, headers: Record<string, string> = {}) =>
  server.request({ path, headers: { authorization: `Bearer ${KEY}`, accept: 'application/json', ...headers } });

describe("a request's id", () => {
  it('is taken from X-Request-ID, answered, sent to the API and named by the JSON log line of the request', async () => {
    const answer = await api('/api/v2/projects/p-1/operations?limit=5&q=secret-search', { 'x-request-id': 'trace-42.a_B' });

    expect(answer.status).toBe(200);
    expect(answer.headers['x-request-id']).toBe('trace-42.a_B');
    expect(seen).toEqual([{ path: '/api/v2/projects/p-1/operations?limit=5&q=secret-search', requestId: 'trace-42.a_B' }]);
    await expect
      .poll(() => requestLine('trace-42.a_B'))
      .toMatchObject({
        level: 'info',
        method: 'GET',
        route: '/api/v2/*',
        status: 200,
        duration_ms: expect.any(Number) as number,
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      });
    // The route's template: neither the project's id nor the search text lands in the log.
    expect(JSON.stringify(server.lines)).not.toMatch(/p-1|secret-search/);
  });

  it('is made anew when what came does not look like one, and the made one goes everywhere the given one would', async () => {
    for (const given of ['has spaces in it', 'x'.repeat(129), 'semi;colon']) {
      seen.length = 0;
      const answer = await api('/api/v2/projects', { 'x-request-id': given });
      const made = answer.headers['x-request-id'];

      expect(made).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen).toEqual([{ path: '/api/v2/projects', requestId: made }]);
      await expect.poll(() => requestLine(String(made))).toMatchObject({ route: '/api/v2/*', status: 200 });
    }
  });

  it("goes with the server's own reads for the request: sign-in's check of the key carries the sign-in's id", async () => {
    reply = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"auth_method":"api_key_user","account_id":"u-1"}');
    const answer = await server.request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: `http://127.0.0.1:${server.port}`, 'x-request-id': 'sign-in-7' },
      body: JSON.stringify({ key: KEY }),
    });

    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers['x-request-id']).toBe('sign-in-7');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((call) => call.requestId === 'sign-in-7')).toBe(true);
  });

  it("is the request_id of the console's own error body, which is the id its log line names", async () => {
    const refused = await server.request({ path: '/api/v2/projects', headers: { accept: 'application/json' } });
    const id = refused.headers['x-request-id'];

    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ request_id: id });
    expect(refused.headers['x-neon-ret-request-id']).toBe(id);
    await expect.poll(() => requestLine(String(id))).toMatchObject({ status: 401, route: '/api/v2/*' });
    expect(seen).toEqual([]);
  });

  it("keeps the API's own id on a refusal passed on, and the log line names both", async () => {
    reply = (_req, res) =>
      res
        .writeHead(404, { 'content-type': 'application/json', 'x-neon-ret-request-id': 'neon-req-9' })
        .end('{"code":"","message":"project not found","request_id":"neon-req-9"}');
    const answer = await api('/api/v2/projects/p-gone', { 'x-request-id': 'mine-1' });

    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ request_id: 'neon-req-9' });
    expect(answer.headers['x-neon-ret-request-id']).toBe('neon-req-9');
    expect(answer.headers['x-request-id']).toBe('mine-1');
    await expect.poll(() => requestLine('mine-1')).toMatchObject({ status: 404, api_request_id: 'neon-req-9' });
  });

  it('is on the event lines written while the request is answered: the API dropping the connection names it', async () => {
    reply = (_req, res) => res.destroy();
    const answer = await api('/api/v2/projects', { 'x-request-id': 'dropped-3' });

    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'CONSOLE_API_UNREACHABLE', request_id: 'dropped-3' });
    expect(server.lines).toContainEqual(
      expect.objectContaining({
        event: 'api.unreachable',
        level: 'warn',
        request_id: 'dropped-3',
        msg: expect.stringMatching(/^Could not reach the API at 127\.0\.0\.1:\d+: .*\(GET \/api\/v2\/projects\)$/) as string,
      }),
    );
    await expect.poll(() => requestLine('dropped-3')).toMatchObject({ status: 502, level: 'warn' });
  });
});

describe('/readyz during shutdown', () => {
  it('turns 503 the moment shutdown begins, for a request still reaching the instance on an open connection', async () => {
    let release!: () => void;
    reply = (_req, res) => {
      // An answer on its way (its head out, more to come), as a long list streams.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`[${'"operation",'.repeat(8_000)}`);
      release = () => res.end('"last"]');
    };
    expect((await server.request({ path: '/readyz' })).status).toBe(200);

    // A client whose connection carries an answer under way, and asks /readyz next on it (pipelined).
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`GET /api/v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    await expect.poll(() => received.startsWith('HTTP/1.1 200')).toBe(true);

    // What SIGTERM does (server/process/signals.ts exitOnSignals): the drain starts, then the rest stops.
    const stopped = server.running.stop();
    const asked = new Promise<void>((resolve) => server.running.server.on('request', (req: http.IncomingMessage) => req.url === '/readyz' && resolve()));
    socket.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await asked;
    release();
    await ended;
    await stopped;

    const answers = received.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers.map((text) => /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])).toEqual(['200', '503']);
    expect(JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4))).toMatchObject({
      status: 'draining',
      checks: { store: { status: 'not checked' } },
    });
  });
});
