import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { close, listen, rawRequest } from '../http-helpers';
import { childScript } from '../../support/child-scripts';
import { testTempDir } from '../../support/test-tmp';

// Graceful shutdown of a real server process: SIGTERM turns /readyz 503 at once and still answers new connections
// for SHUTDOWN_GRACE_MS (a balancer polls before it stops sending); then a request waiting on a slow API is let
// finish, new connections are refused, and it exits 0.

let release!: () => void;
let arrived!: () => void;
let slowArrived!: Promise<void>;
const upstream = http.createServer((req, res) => {
  if (req.url?.endsWith('/slow')) {
    arrived();
    release = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"finished":true}');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
});

beforeEach(() => {
  slowArrived = new Promise<void>((resolve) => (arrived = resolve));
});

/** The console's server as `npm start` runs it, in a process of its own; resolves once it listens. */
async function startServerProcess(graceMs = 0) {
  const child = spawn(process.execPath, [await childScript('drain-server')], {
    // A DATA_DIR of its own: the store's folder is one process's (server/store/data-dir-lock.ts).
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      API_URL: apiUrl,
      DATA_DIR: await testTempDir('ops-console-drain-'),
      SHUTDOWN_GRACE_MS: String(graceMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await expect.poll(() => /Ops Console: http:\/\/127\.0\.0\.1:(\d+)\//.test(output), { timeout: 20_000 }).toBe(true);
  const port = Number(/Ops Console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)![1]);
  return { child, port, exited, output: () => output };
}

/** Opens a TCP connection and optionally sends some bytes on it (a browser's spare socket sends none). */
async function openSocket(port: number, send?: string): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  if (send) socket.write(send);
  return socket;
}
let apiUrl: string;

beforeAll(async () => {
  apiUrl = `http://127.0.0.1:${await listen(upstream)}/api/v2`;
});
afterAll(() => close(upstream));

describe('SIGTERM', () => {
  it('answers new connections for the grace period with /readyz 503, then finishes the requests in flight and exits 0', async () => {
    const { child, port, exited, output } = await startServerProcess(1_500);
    try {
      expect((await rawRequest(port, { path: '/healthz' })).status).toBe(200);

      const inFlight = rawRequest(port, { path: '/api/v2/slow', headers: { authorization: 'Bearer drain-test-key' } });
      await slowArrived;
      child.kill('SIGTERM');
      await expect.poll(output).toContain('SIGTERM: finishing the requests in flight');
      await expect.poll(output).toContain('Shutdown: /readyz answers 503; still answering for 1.5 s');
      // A new connection in the grace period is answered: the balancer has not polled yet, and would see a 502.
      const meanwhile = await rawRequest(port, { path: '/readyz', headers: { connection: 'close' } });
      expect([meanwhile.status, JSON.parse(meanwhile.body) as unknown]).toEqual([503, expect.objectContaining({ status: 'draining' })]);
      expect((await rawRequest(port, { path: '/api/v2/fast', headers: { authorization: 'Bearer drain-test-key' } })).status).toBe(200);
      await expect.poll(output, { timeout: 10_000 }).toContain('Shutdown: waiting for 1 request in flight (at most 20 s): GET /api/v2/slow');
      // No new connection is taken once the grace period is over.
      await expect(rawRequest(port, { path: '/healthz' })).rejects.toThrow();
      expect(child.exitCode).toBeNull();

      release();
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ finished: true });
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('answers the next request on every kept-alive connection, with Connection: close, never a reset; /healthz says draining', async () => {
    const { child, port, exited } = await startServerProcess();
    const clients = Array.from({ length: 15 }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const ask = (agent: http.Agent, path: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path, agent }, (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
          })
          .on('error', reject);
      });
    try {
      // Fifteen clients that keep their connection, as a balancer or a browser does, each idle after one answer.
      for (const agent of clients) expect((await ask(agent, '/healthz')).status).toBe(200);
      const [first, ...others] = clients;
      child.kill('SIGTERM');
      // The first client asks until the drain has begun; it is answered on its own connection all along.
      let seen = await ask(first!, '/healthz');
      while (seen.status === 200) seen = await ask(first!, '/healthz');
      expect([seen.status, seen.connection, JSON.parse(seen.body) as unknown]).toEqual([503, 'close', { status: 'draining' }]);
      // The others' next requests, on the connections they kept: answered, none reset.
      const answers = await Promise.all(others.map((agent) => ask(agent, '/healthz')));
      expect(answers.map((answer) => [answer.status, answer.connection, JSON.parse(answer.body) as unknown])).toEqual(
        others.map(() => [503, 'close', { status: 'draining' }]),
      );
      expect(await exited).toBe(0);
    } finally {
      for (const agent of clients) agent.destroy();
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('is not held by a browser’s idle keep-alive, spare or half-sent connections: it exits once the last answer is out', async () => {
    const { child, port, exited, output } = await startServerProcess();
    const browser = new http.Agent({ keepAlive: true });
    const sockets: net.Socket[] = [];
    try {
      // What Chromium holds open on a page: a keep-alive socket that served the page, a spare it has sent nothing on, and one mid-request.
      await new Promise<void>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/healthz', agent: browser }, (res) => res.resume().on('end', resolve)).on('error', reject);
      });
      sockets.push(await openSocket(port), await openSocket(port, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`));
      const inFlight = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/api/v2/slow', agent: browser, headers: { authorization: 'Bearer drain-test-key' } }, (res) => {
            res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          })
          .on('error', reject);
      });
      await slowArrived;

      child.kill('SIGTERM');
      await expect.poll(output).toContain('Shutdown: waiting for 1 request in flight (at most 20 s): GET /api/v2/slow');
      release();
      expect(await inFlight).toEqual({ status: 200, connection: 'close' });
      const stoppedAt = Date.now();
      // The server closed the spare and half-sent sockets itself (the client never did).
      await expect.poll(() => sockets.every((socket) => socket.readableEnded || socket.destroyed)).toBe(true);
      expect(await exited).toBe(0);
      // The grace period is 20 s; what held it before was the idle and spare sockets, which the server now closes.
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
      expect(output()).not.toContain('cut off');
    } finally {
      browser.destroy();
      for (const socket of sockets) socket.destroy();
      child.kill('SIGKILL');
    }
  }, 40_000);
});
