// The archive's part of the bench (`npm run bench -- --only=archive`): a console server in this process
// over the simulator with the 20,000-operation project (SIM_HUGE_PROJECT=1), served here as its API
// (API_URL) so every request the console sends it is counted, and a fresh PGlite store; keep the demo key,
// then time the backfill of every project (and count the collector's API requests) and a filter over the
// big project answered from the store (the server's own time, Server-Timing).
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { nodeHandler } from '../server/http/node-bridge';
import { createApiBackend } from '../server/proxy/api-backend';
import { HUGE_PROJECT_OPERATIONS } from '../sim/seed';
import { startServer } from '../server/process/compose';
import { ARCHIVE_ACTIVITY_PATH } from '../src/api/archive-schemas';
import { DEFAULT_POLL_INTERVAL_MS } from '../src/model/operation-status';

const KEY = 'bench-archive-key-000000000000000';
const FILTER_RUNS = 15;
/** How long each viewer count is watched, in real time. */
const VIEWERS_WINDOW_MS = Number(process.env.BENCH_VIEWERS_MS ?? 60_000);

export interface ArchiveResult {
  storeOpenMs: number;
  backfillMs: number;
  backfillRequests: number;
  operations: number;
  filter: { search: string; matches: number; serverMs: number; totalMs: number };
  /** API requests a minute (everything the server sent the API: the collector, access checks) with this many people on Activity. */
  activity: { viewers: number; apiRequestsPerMinute: number }[];
}

/** The simulator served as an API on loopback, with a count of every request the console sends it (proxy, collector, access checks). */
async function countedSimulator(): Promise<{ apiUrl: string; sent: () => number; close: () => Promise<void> }> {
  const answer = nodeHandler(createApiBackend({ simApiKey: KEY, simHugeProject: HUGE_PROJECT_OPERATIONS }).fetch);
  let sent = 0;
  const server = http.createServer((req, res) => {
    sent += 1;
    void answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`,
    sent: () => sent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * People on Activity whose projects the archive covers: each session reads `/archive/activity` at the poll
 * interval, which is what the page does for covered projects (test/e2e/archive.spec.ts shows the page then
 * sends the API nothing itself). Counted: what the server sends the API meanwhile, per minute.
 */
async function watchActivity(port: number, cookies: readonly string[], origin: string, sent: () => number): Promise<number> {
  const before = sent();
  const started = performance.now();
  await Promise.all(
    cookies.map(async (cookie) => {
      while (performance.now() - started < VIEWERS_WINDOW_MS) {
        const answer = await call(port, 'GET', ARCHIVE_ACTIVITY_PATH, { cookie, origin, accept: 'application/json' });
        if (answer.status !== 200) throw new Error(`/archive/activity answered ${answer.status}: ${answer.body}`);
        await new Promise((resolve) => setTimeout(resolve, DEFAULT_POLL_INTERVAL_MS));
      }
    }),
  );
  return ((sent() - before) * 60_000) / (performance.now() - started);
}

function call(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export async function measureArchive(): Promise<ArchiveResult> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ops-console-bench-archive-'));
  const counted = await countedSimulator();
  const running = await startServer({
    mode: 'production',
    env: { HOST: '127.0.0.1', PORT: '0', API_URL: counted.apiUrl, DATA_DIR: dataDir },
    print: () => undefined,
    serving: () =>
      Promise.resolve({
        template: { html: () => Promise.resolve('<html><head></head><body><div id="root"><!--app-html--></div></body></html>') },
        assets: (_req, _res, next) => next(),
      }),
  });
  const port = Number(new URL(running.url).port);
  const origin = `http://127.0.0.1:${port}`;
  try {
    const signIn = await call(port, 'POST', '/session', { 'content-type': 'application/json', origin }, JSON.stringify({ key: KEY }));
    const cookie = (signIn.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    const page = { cookie, origin, accept: 'application/json' };
    const opening = performance.now();
    const db = await running.store.db();
    const storeOpenMs = performance.now() - opening;
    const started = performance.now();
    const kept = await call(port, 'POST', '/archive/sources', page);
    if (kept.status !== 201) throw new Error(`Keep history answered ${kept.status}: ${kept.body}`);
    let hugeId = '';
    for (;;) {
      const { rows } = await db.query<{ project_id: string; done: boolean }>(
        `SELECT max(project_id) FILTER (WHERE name = 'acme-event-archive') AS project_id, bool_and(backfilled) AND count(*) > 0 AS done FROM archive_projects`,
        [],
      );
      if (rows[0]?.done) {
        hugeId = rows[0].project_id;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const backfillMs = performance.now() - started;
    const backfillRequests = running.leader.collectorRequests();
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM operations WHERE project_id = $1', [hugeId]);
    const search = 'status=failed';
    const serverMs: number[] = [];
    const totalMs: number[] = [];
    let matches = 0;
    for (let i = 0; i < FILTER_RUNS; i++) {
      const at = performance.now();
      const answer = await call(port, 'GET', `/archive/projects/${hugeId}/operations?${search}`, page);
      totalMs.push(performance.now() - at);
      serverMs.push(Number(/dur=([\d.]+)/.exec(String(answer.headers['server-timing']))?.[1] ?? NaN));
      matches = (JSON.parse(answer.body) as { operations: unknown[] }).operations.length;
    }
    const activity: ArchiveResult['activity'] = [];
    for (const viewers of [1, 5]) {
      const cookies = await Promise.all(
        Array.from({ length: viewers }, async () => {
          const session = await call(port, 'POST', '/session', { 'content-type': 'application/json', origin }, JSON.stringify({ key: KEY }));
          return (session.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
        }),
      );
      activity.push({ viewers, apiRequestsPerMinute: await watchActivity(port, cookies, origin, counted.sent) });
    }
    return {
      storeOpenMs,
      backfillMs,
      backfillRequests,
      operations: count.rows[0]?.n ?? 0,
      filter: { search, matches, serverMs: median(serverMs), totalMs: median(totalMs) },
      activity,
    };
  } finally {
    running.server.closeAllConnections();
    await running.stop();
    await counted.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function reportArchive(result: ArchiveResult): void {
  console.log('\nArchive (PGlite store, SIM_HUGE_PROJECT=1, ARCHIVE_BUDGET 300/min)');
  console.log(`  store first open (PGlite initdb + migrations): ${Math.round(result.storeOpenMs)} ms`);
  console.log(
    `  backfill of every project: ${(result.backfillMs / 1_000).toFixed(1)} s, ${result.backfillRequests} API requests; ${result.operations} operations in the big project`,
  );
  console.log(
    `  ?${result.filter.search} over it from the store: ${result.filter.matches} matches, ${result.filter.serverMs.toFixed(1)} ms server time, ${result.filter.totalMs.toFixed(1)} ms round trip (median of ${FILTER_RUNS})`,
  );
  for (const { viewers, apiRequestsPerMinute } of result.activity) {
    console.log(
      `  Activity with ${viewers} ${viewers === 1 ? 'viewer' : 'viewers'} reading the archive: ${apiRequestsPerMinute.toFixed(0)} API requests a minute (everything the server sent the API, collector included)`,
    );
  }
}
