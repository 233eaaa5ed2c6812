import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTempDir } from '../../support/test-tmp';
import { rawRequest } from '../http-helpers';
import { CHILD_KEY, signIn, startChildServer, waitFor, type ChildServer } from '../store/child-server';
import { postgresDatabase } from '../store/store-drivers';

// A rolling restart behind a balancer loses nothing (server/process/shutdown.ts, docs/deploying.md): two instances
// share one Postgres behind a small balancer that, like nginx with a health check, polls each instance's /readyz every
// 250 ms and sends requests round-robin to those whose last answer was 200, on a new connection each. Under a steady
// 20 requests a second (sign-ins and API reads), each instance in turn is sent SIGTERM and replaced by a new one:
// /readyz turns 503 at once while the instance still answers for SHUTDOWN_GRACE_MS, so the balancer moves away first.

const POLL_MS = 250;
const LOAD_INTERVAL_MS = 50;
/** Longer than the balancer's poll, as docs/deploying.md asks, with room for a poll that a loaded machine answers late. */
const GRACE_MS = 5_000;

interface Upstream {
  server: ChildServer;
  healthy: boolean;
  /** Polls in a row that got no answer in time (a busy machine): three take it out, as nginx's `max_fails` does. */
  slow?: number;
}

/** The balancer: round-robin over the instances whose /readyz answered 200 on the last poll; a failed forward is a 502. */
function startBalancer(upstreams: Upstream[]) {
  let turn = 0;
  const poll = setInterval(() => {
    for (const upstream of upstreams) {
      const req = http.get({ host: '127.0.0.1', port: upstream.server.port, path: '/readyz', agent: false, timeout: 1_000 }, (res) => {
        upstream.healthy = res.statusCode === 200;
        upstream.slow = 0;
        res.resume();
      });
      req.on('timeout', () => {
        upstream.slow = (upstream.slow ?? 0) + 1;
        if (upstream.slow >= 3) upstream.healthy = false;
        req.destroy();
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') upstream.healthy = false;
      });
    }
  }, POLL_MS);
  const server = http.createServer((req, res) => {
    const healthy = upstreams.filter((upstream) => upstream.healthy);
    const target = healthy[turn++ % Math.max(1, healthy.length)];
    if (!target) {
      res.writeHead(502).end('no instance ready');
      return;
    }
    const forward = http.request(
      { host: '127.0.0.1', port: target.server.port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502).end(`upstream: ${error.message}`);
      else res.destroy();
    });
    req.pipe(forward);
  });
  return {
    server,
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    close: async () => {
      clearInterval(poll);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function send(port: number, options: http.RequestOptions, body?: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, agent: false, timeout: 10_000, ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', (error) => resolve(error.message));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

describe('a rolling restart of two instances behind a balancer', () => {
  let databaseUrl: string;
  const upstreams: Upstream[] = [];
  const started: ChildServer[] = [];
  let balancer: ReturnType<typeof startBalancer>;
  let port = 0;

  const instance = async () => {
    const server = await startChildServer({ DATABASE_URL: databaseUrl, DATA_DIR: await testTempDir('rolling-'), SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    started.push(server);
    return server;
  };

  beforeAll(async () => {
    databaseUrl = await postgresDatabase();
    for (const server of await Promise.all([instance(), instance()])) upstreams.push({ server, healthy: false });
    balancer = startBalancer(upstreams);
    port = await balancer.listen();
  }, 90_000);
  afterAll(async () => {
    await balancer.close();
    await Promise.all(started.map((server) => server.kill()));
  });

  it('loses no request, sign-ins among them, while each instance in turn drains and is replaced', { timeout: 180_000 }, async ({ annotate }) => {
    await waitFor('both instances ready', () => Promise.resolve(upstreams.every((upstream) => upstream.healthy) ? true : undefined), 30_000);
    const origin = `http://127.0.0.1:${port}`;
    // Signed in through the balancer, as a browser is: the cookie works on every instance (one SESSION_SECRET).
    const first = await signIn({ origin, request: (request) => rawRequest(port, { ...request, headers: { connection: 'close', ...request.headers } }) });

    const answers = new Map<string, number>();
    let sent = 0;
    const inFlight: Promise<void>[] = [];
    const load = setInterval(() => {
      const signingIn = sent++ % 2 === 0;
      const asked = signingIn
        ? send(
            port,
            { method: 'POST', path: '/session', headers: { 'content-type': 'application/json', accept: 'application/json', origin } },
            JSON.stringify({ key: CHILD_KEY }),
          )
        : send(port, { path: '/api/v2/projects?limit=1', headers: { cookie: first, accept: 'application/json' } });
      inFlight.push(asked.then((status) => void answers.set(status, (answers.get(status) ?? 0) + 1)));
    }, LOAD_INTERVAL_MS);

    try {
      for (const index of [0, 1]) {
        const old = upstreams[index]!;
        old.server.child.kill('SIGTERM');
        expect(await old.server.exited).toBe(0);
        const replacement: Upstream = { server: await instance(), healthy: false };
        upstreams[index] = replacement;
        await waitFor(`the new instance ${index} to be ready`, () => Promise.resolve(replacement.healthy ? true : undefined), 30_000);
      }
      // wall-clock: a second more of load on the two new instances.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      clearInterval(load);
    }
    await Promise.all(inFlight);

    expect(Object.fromEntries(answers)).toEqual({ '200': sent });
    expect(sent).toBeGreaterThan(100);
    await annotate(`${sent} requests (half of them sign-ins) through two restarts, every one answered 200`);
  });
});
