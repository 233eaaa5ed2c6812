// The console's server under load (issue 15): 50 connections for 20 s on a proxied /api/v2 read and on
// a signed-in deep link page, with autocannon in this process (on the same 2 cores as the server), and
// the server's resident memory before and after. The simulator's platform rate limits are off for it
// (SIM_RATE_LIMITS=off): with them, almost every request would be a quick 429.
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { sessionCookie, startConsole } from './server';
import { apiClient } from './api';

export const LOAD_CONNECTIONS = 50;
export const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
/** Resident memory may grow this much over both runs before the bench calls it unbounded. */
export const MEMORY_BOUND_MIB = 64;

export interface LoadRun {
  what: string;
  path: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadResult {
  connections: number;
  seconds: number;
  runs: LoadRun[];
  rssMiB: { before: number; afterApi: number; afterPage: number };
  boundMiB: number;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

async function hammer(origin: string, what: string, path: string, headers: Record<string, string>): Promise<LoadRun> {
  const result = await autocannon({ url: `${origin}${path}`, connections: LOAD_CONNECTIONS, duration: LOAD_SECONDS, headers });
  return {
    what,
    path,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export async function measureLoad(env: NodeJS.ProcessEnv, apiKey: string): Promise<LoadResult> {
  const server = await startConsole({ ...env, SIM_API_KEY: apiKey, SIM_RATE_LIMITS: 'off' });
  try {
    const big = await apiClient(server.origin, apiKey).bigProject();
    const cookie = await sessionCookie(server.origin, apiKey);
    const before = await rssMiB(server.pid);
    process.stdout.write(`load: ${LOAD_CONNECTIONS} connections × ${LOAD_SECONDS} s on /api/v2… `);
    const api = await hammer(server.origin, 'proxied /api/v2 read (100 operations)', `/api/v2/projects/${encodeURIComponent(big.id)}/operations?limit=100`, {
      cookie,
      accept: 'application/json',
    });
    const afterApi = await rssMiB(server.pid);
    process.stdout.write('on the deep link page… ');
    const page = await hammer(server.origin, 'signed-in deep link page (HTML)', `/projects/${encodeURIComponent(big.id)}`, { cookie, accept: 'text/html' });
    const afterPage = await rssMiB(server.pid);
    process.stdout.write('done\n');
    return { connections: LOAD_CONNECTIONS, seconds: LOAD_SECONDS, runs: [api, page], rssMiB: { before, afterApi, afterPage }, boundMiB: MEMORY_BOUND_MIB };
  } finally {
    await server.stop();
  }
}

export function reportLoad(load: LoadResult): void {
  console.log(`\nThe server under load (${load.connections} connections, ${load.seconds} s each, autocannon on the same machine):\n`);
  for (const run of load.runs) {
    console.log(
      `  ${run.what.padEnd(40)} ${run.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${run.p50Ms.toFixed(0).padStart(4)} ms  p99 ${run.p99Ms.toFixed(0).padStart(4)} ms  (${run.requests} requests, ${run.non2xx} non-2xx, ${run.errors} errors)`,
    );
  }
  const { before, afterApi, afterPage } = load.rssMiB;
  console.log(`  server RSS: ${before.toFixed(0)} MiB before, ${afterApi.toFixed(0)} MiB after the API run, ${afterPage.toFixed(0)} MiB after the page run`);
}

export function loadWithinBound(load: LoadResult): boolean {
  return load.rssMiB.afterPage - load.rssMiB.before <= load.boundMiB && load.runs.every((run) => run.non2xx === 0 && run.errors === 0);
}
