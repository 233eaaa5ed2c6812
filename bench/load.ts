// The console's server under load (issue 15): 50 connections for 20 s on a proxied /api/v2 read and on
// a signed-in deep link page rendered by the server, with autocannon in this process (on the same 2 cores
// as the server), and the server's memory before and after: resident, and its live heap after a full
// collection (bench/heap-probe.js), which is what the bound holds. Of the pages, it counts those that came
// rendered (past the render deadline a page goes out as the shell, which is cheaper). The simulator's
// platform rate limits are off for it (SIM_RATE_LIMITS=off): with them, almost every request would be a quick 429.
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { sessionCookie, startConsole } from './server';
import { apiClient } from './api';

export const LOAD_CONNECTIONS = 50;
export const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
/** The live heap after a full collection may grow this much over both runs before the bench calls it unbounded. */
export const MEMORY_BOUND_MIB = 32;
const HEAP_PROBE = pathToFileURL(join(import.meta.dirname, 'heap-probe.js')).href;

export interface LoadRun {
  what: string;
  path: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Pages only: how many answers carried the rendered screen (the rest were the shell). */
  rendered?: number;
}

export interface LoadResult {
  connections: number;
  seconds: number;
  runs: LoadRun[];
  rssMiB: Memory;
  /** The live heap after a full collection: what a leak would grow. */
  heapMiB: Memory;
  boundMiB: number;
}

interface Memory {
  before: number;
  afterApi: number;
  afterPage: number;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/** Asks the server's heap probe for a full collection and reads the live heap it writes. */
async function heapAfterGcMiB(pid: number, file: string): Promise<number> {
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  for (let tries = 0; tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const probe = await readFile(file, 'utf8').then((text) => JSON.parse(text) as { heapUsed: number; at: number }, () => null);
    if (probe && probe.at >= asked) return probe.heapUsed / 1024 / 1024;
  }
  throw new Error('the server\'s heap probe did not answer');
}

async function hammer(origin: string, what: string, path: string, headers: Record<string, string>, countRendered = false): Promise<LoadRun> {
  let rendered = 0;
  const onResponse = (_status: number, body: string) => {
    if (body.includes('"renderedAt":')) rendered++;
  };
  const result = await autocannon({
    url: `${origin}${path}`,
    connections: LOAD_CONNECTIONS,
    duration: LOAD_SECONDS,
    headers,
    ...(countRendered ? { requests: [{ method: 'GET', onResponse }] } : {}),
  });
  return {
    what,
    path,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ...(countRendered ? { rendered } : {}),
  };
}

export async function measureLoad(env: NodeJS.ProcessEnv, apiKey: string): Promise<LoadResult> {
  const heapFile = join(tmpdir(), `ops-console-bench-heap-${process.pid}.json`);
  const server = await startConsole({ ...env, SIM_API_KEY: apiKey, SIM_RATE_LIMITS: 'off', BENCH_HEAP_FILE: heapFile }, ['--expose-gc', '--import', HEAP_PROBE]);
  const memory = async () => ({ rss: await rssMiB(server.pid), heap: await heapAfterGcMiB(server.pid, heapFile) });
  try {
    const big = await apiClient(server.origin, apiKey).bigProject();
    const cookie = await sessionCookie(server.origin, apiKey);
    const before = await memory();
    process.stdout.write(`load: ${LOAD_CONNECTIONS} connections × ${LOAD_SECONDS} s on /api/v2… `);
    const api = await hammer(server.origin, 'proxied /api/v2 read (100 operations)', `/api/v2/projects/${encodeURIComponent(big.id)}/operations?limit=100`, {
      cookie,
      accept: 'application/json',
    });
    const afterApi = await memory();
    process.stdout.write('on the deep link page… ');
    const page = await hammer(server.origin, 'server-rendered deep link page', `/projects/${encodeURIComponent(big.id)}`, { cookie, accept: 'text/html' }, true);
    const afterPage = await memory();
    process.stdout.write('done\n');
    return {
      connections: LOAD_CONNECTIONS,
      seconds: LOAD_SECONDS,
      runs: [api, page],
      rssMiB: { before: before.rss, afterApi: afterApi.rss, afterPage: afterPage.rss },
      heapMiB: { before: before.heap, afterApi: afterApi.heap, afterPage: afterPage.heap },
      boundMiB: MEMORY_BOUND_MIB,
    };
  } finally {
    await server.stop();
    await rm(heapFile, { force: true });
  }
}

export function reportLoad(load: LoadResult): void {
  console.log(`\nThe server under load (${load.connections} connections, ${load.seconds} s each, autocannon on the same machine):\n`);
  for (const run of load.runs) {
    console.log(
      `  ${run.what.padEnd(40)} ${run.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${run.p50Ms.toFixed(0).padStart(4)} ms  p99 ${run.p99Ms.toFixed(0).padStart(4)} ms  (${run.requests} requests, ${run.non2xx} non-2xx, ${run.errors} errors${run.rendered === undefined ? '' : `, ${run.rendered} rendered`})`,
    );
  }
  for (const [what, { before, afterApi, afterPage }] of [['RSS', load.rssMiB], ['live heap after a full GC', load.heapMiB]] as const) {
    console.log(`  server ${what}: ${before.toFixed(0)} MiB before, ${afterApi.toFixed(0)} MiB after the API run, ${afterPage.toFixed(0)} MiB after the page run`);
  }
}

export function heapWithinBound(load: LoadResult): boolean {
  return load.heapMiB.afterPage - load.heapMiB.before <= load.boundMiB;
}
