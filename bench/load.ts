// The console's server under load (docs/benchmarks.md), measuring the server and not its neighbours: the load
// generator (autocannon) runs in a process of its own (bench/load-generator.ts), the API is a stub process
// on loopback with fixed answers recorded from the simulator (bench/api-stub.ts, API_URL), and beside each
// figure the same load against a bare node:http process returning the same bytes (bench/bare-server.ts),
// as a ratio: the machine's limit (for the proxied read also a bare node:http proxy to the same stub on as
// many processes, bench/bare-proxy.ts: the limit for anything that makes the hop). 50 connections on a
// proxied /api/v2 read and on the rendered deep link; 200 connections on the deep link while /healthz is
// asked on one more connection and 100 people arrive on new ones (bench/arrivals.ts). Memory of every server
// process (the instances and their primary) before and after. Answers are asked for uncompressed, so the rendered
// pages can be counted from their bodies.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OPERATIONS_PAGE_SIZE } from '../src/api/operations';
import { apiClient } from './api';
import { freshDatabase, postgresBin, preparePostgresDir, stopPostgres } from '../test/support/postgres-server';
import { sessionCookie, startConsole } from './server';
import type { StubAnswers } from './api-stub';

export const LOAD_CONNECTIONS = 50;
export const OVERLOAD_CONNECTIONS = 200;
export const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
/**
 * The same load first, not counted: a server that has just started compiles its code as it goes (the proxied
 * read's first 10 s ran at 2,600–2,700 req/s, the same server's third at 3,300), and one that has served a
 * while is what people meet.
 */
export const LOAD_WARMUP_SECONDS = Number(process.env.BENCH_LOAD_WARMUP_SECONDS ?? 5);
/**
 * Runs of each 50-connection load, one after another; the run with the median req/s is the figure, and every
 * run is shown. On these two shared cores one 10 s run of the same build gave anywhere from 2,700 to 4,400
 * proxied reads a second (2026-11-26, ten runs): a single run says more about the machine than the server.
 */
export const LOAD_TRIALS = Math.max(1, Number(process.env.BENCH_LOAD_TRIALS ?? 3));
/** Node flags for the loaded server and its instances, to look into a figure (`BENCH_NODE_FLAGS="--trace-gc"`, with BENCH_SERVER_LOG). */
const SERVER_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The live heap after a full collection may grow this much over the runs before the bench calls it unbounded. */
export const MEMORY_BOUND_MIB = 32;
/** People who arrive at once while the 200 connections keep the server busy, and when. */
export const ARRIVALS = 100;
export const ARRIVALS_AFTER_MS = 3_000;
export const TARGETS = { pageRps: 400, pageP99Ms: 150, apiRps: 3_000, apiP99Ms: 50, overloadMaxMs: 1_000, healthMaxMs: 50 };
const HEAP_PROBE = pathToFileURL(join(import.meta.dirname, 'heap-probe.js')).href;
const RENDERED = '"renderedAt":';

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  counted: number;
}

export interface LoadRun extends LoadFigures {
  what: string;
  path: string;
  connections: number;
  /** The same load on a bare node:http server returning the same bytes. */
  bare?: LoadFigures;
  /** The proxied read only: the same load on a bare node:http proxy to the same stub, on as many processes. */
  bareProxy?: LoadFigures;
  /** Pages only: how many answers carried the rendered screen (the rest were the shell). */
  rendered?: number;
  /** Every run of this load, in order (the figures above are the median one's, but non-2xx and errors are all runs'). */
  trials?: LoadFigures[];
}

/** The run with the median req/s, its failures replaced by those of every run: one bad run is never hidden. */
export function medianRun(trials: readonly LoadFigures[]): LoadFigures {
  const sorted = [...trials].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) throw new Error('no load run to take the median of');
  const sum = (of: (run: LoadFigures) => number) => trials.reduce((total, run) => total + of(run), 0);
  return { ...median, non2xx: sum((run) => run.non2xx), errors: sum((run) => run.errors) };
}

/** People arriving during the overload (bench/arrivals.ts): new connections, each asking for the page once. */
export interface Arrivals {
  count: number;
  failed: number;
  connectMaxMs: number;
  firstByteP50Ms: number;
  firstByteP90Ms: number;
  firstByteMaxMs: number;
}

export interface LoadResult {
  seconds: number;
  workers: number;
  runs: LoadRun[];
  /** /healthz on one connection during the 200-connection run. */
  health: LoadFigures;
  /** ARRIVALS new connections opened at once, ARRIVALS_AFTER_MS into the 200-connection run. */
  arrivals: Arrivals;
  rssMiB: Memory;
  /** The live heap after a full collection, summed over the server's processes: what a leak would grow. */
  heapMiB: Memory;
  boundMiB: number;
}

interface Memory {
  before: number;
  after: number;
}

/** Starts `node --import tsx <script> ...args` and waits for its `port <n>` line. */
export async function startHelper(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /port (\d+)/.exec(output)?.[1];
      if (found) resolve(Number(found));
    });
    child.on('exit', (code) => reject(new Error(`${script} exited (${code}) before listening`)));
  });
  return { port, child };
}

/** Runs a bench script in a process of its own with JSON options; resolves with the JSON line it prints last. */
function runJson<T>(script: string, options: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}`));
      else resolve(JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as T);
    });
  });
}

export function generate(options: {
  url: string;
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  countBodiesWith?: string;
}): Promise<LoadFigures> {
  return runJson<LoadFigures>('load-generator.ts', options);
}

/** The server's process and, when several serve, its instances. */
async function processTree(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return [pid, ...children.split(/\s+/).filter(Boolean).map(Number)];
}

async function rssMiB(pids: number[]): Promise<number> {
  let kib = 0;
  for (const pid of pids) kib += Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kib / 1024;
}

async function heapAfterGcMiB(pids: number[], file: string): Promise<number> {
  const asked = Date.now();
  for (const pid of pids) process.kill(pid, 'SIGUSR2');
  let total = 0;
  for (const pid of pids) {
    for (let tries = 0; ; tries++) {
      if (tries > 100) throw new Error(`the heap probe of process ${pid} did not answer`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const probe = await readFile(`${file}.${pid}`, 'utf8').then(
        (text) => JSON.parse(text) as { heapUsed: number; at: number },
        () => null,
      );
      if (probe && probe.at >= asked) {
        total += probe.heapUsed;
        break;
      }
    }
  }
  return total / 1024 / 1024;
}

/** The fixed answers of the stub: what the simulator says to the requests a page and the proxied read make. */
async function recordAnswers(env: NodeJS.ProcessEnv, apiKey: string): Promise<{ answers: StubAnswers; projectId: string }> {
  const server = await startConsole({ ...env, SIM_API_KEY: apiKey, WEB_CONCURRENCY: '1' });
  try {
    const big = await apiClient(server.origin, apiKey).bigProject();
    const id = encodeURIComponent(big.id);
    const paths = [
      '/auth',
      '/users/me',
      '/users/me/organizations',
      '/projects',
      `/projects/${id}`,
      `/projects/${id}/operations`,
      `/projects/${id}/branches`,
      `/projects/${id}/endpoints`,
    ];
    const answers: StubAnswers = {};
    for (const path of paths) {
      const query = path.endsWith('/operations') ? `?limit=${OPERATIONS_PAGE_SIZE}` : path === '/projects' ? '?limit=400' : '';
      const response = await fetch(`${server.origin}/api/v2${path}${query}`, { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' } });
      answers[`/api/v2${path}`] = { status: response.status, body: await response.text() };
    }
    return { answers, projectId: big.id };
  } finally {
    await server.stop();
  }
}

/**
 * A throwaway Postgres server for the loaded console: several processes serve only as instances of one
 * (docs/deploying.md), as a team runs it. Without Debian's postgresql the console is loaded as one process.
 */
async function loadStore(scratch: string): Promise<{ env: NodeJS.ProcessEnv; stop: () => Promise<void> }> {
  if (!postgresBin()) return { env: {}, stop: () => Promise.resolve() };
  const dir = `${scratch}-postgres`;
  await mkdir(dir, { recursive: true });
  await preparePostgresDir(dir);
  const url = await freshDatabase(dir);
  return { env: { DATABASE_URL: url, SESSION_SECRET: 'bench-session-secret-0000000000000000000' }, stop: () => stopPostgres(dir) };
}

export async function measureLoad(env: NodeJS.ProcessEnv, apiKey: string): Promise<LoadResult> {
  const scratch = join(tmpdir(), `ops-console-bench-${process.pid}`);
  const heapFile = `${scratch}-heap`;
  const { answers, projectId } = await recordAnswers(env, apiKey);
  await writeFile(`${scratch}-answers.json`, JSON.stringify(answers));
  const stub = await startHelper('api-stub.ts', [`${scratch}-answers.json`]);
  const store = await loadStore(scratch);
  const apiEnv: NodeJS.ProcessEnv = { ...env, ...store.env, API_URL: `http://127.0.0.1:${stub.port}/api/v2`, BENCH_HEAP_FILE: heapFile };
  delete apiEnv.SIM_API_KEY;
  const server = await startConsole(apiEnv, ['--expose-gc', ...SERVER_NODE_FLAGS, '--import', HEAP_PROBE]);
  const helpers: ChildProcess[] = [stub.child];
  try {
    // The instances announce themselves once listening: give them a moment to all be up before counting them.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const pids = await processTree(server.pid);
    const memory = async () => ({ rss: await rssMiB(pids), heap: await heapAfterGcMiB(pids, heapFile) });
    const cookie = await sessionCookie(server.origin, apiKey);
    const before = await memory();
    const id = encodeURIComponent(projectId);
    const scenarios = [
      {
        what: 'proxied /api/v2 read (100 operations)',
        path: `/api/v2/projects/${id}/operations?limit=100`,
        headers: { cookie, accept: 'application/json' },
        connections: LOAD_CONNECTIONS,
      },
      { what: 'rendered deep link page', path: `/projects/${id}`, headers: { cookie, accept: 'text/html' }, connections: LOAD_CONNECTIONS },
    ];
    const runs: LoadRun[] = [];
    for (const scenario of scenarios) {
      process.stdout.write(`load: ${scenario.connections} connections × ${LOAD_SECONDS} s on ${scenario.what}… `);
      const url = `${server.origin}${scenario.path}`;
      const page = scenario.headers.accept === 'text/html';
      // The bare server returns what the console answers this request on a quiet server (a rendered page
      // when it is one): asked for before the load, since under it a page may go out as the shell.
      const sample = await fetch(url, { headers: scenario.headers });
      const sampleBytes = Buffer.from(await sample.arrayBuffer());
      if (LOAD_WARMUP_SECONDS > 0) await generate({ url, connections: scenario.connections, seconds: LOAD_WARMUP_SECONDS, headers: scenario.headers });
      const trials: LoadFigures[] = [];
      for (let trial = 0; trial < LOAD_TRIALS; trial++) {
        trials.push(
          await generate({
            url,
            connections: scenario.connections,
            seconds: LOAD_SECONDS,
            headers: scenario.headers,
            ...(page ? { countBodiesWith: RENDERED } : {}),
          }),
        );
      }
      const figures = medianRun(trials);
      const bytesFile = `${scratch}-bytes`;
      await writeFile(bytesFile, sampleBytes);
      const bare = await startHelper('bare-server.ts', [bytesFile, sample.headers.get('content-type') ?? 'application/octet-stream']);
      helpers.push(bare.child);
      const bareFigures = await generate({
        url: `http://127.0.0.1:${bare.port}${scenario.path}`,
        connections: scenario.connections,
        seconds: LOAD_SECONDS,
        headers: scenario.headers,
      });
      bare.child.kill();
      // A proxy pays for a hop the bare server does not make: the bare proxy shows what that hop costs here.
      let bareProxy: LoadFigures | undefined;
      if (!page) {
        const proxy = await startHelper('bare-proxy.ts', [`http://127.0.0.1:${stub.port}`, String(Math.max(1, pids.length - 1))]);
        helpers.push(proxy.child);
        bareProxy = await generate({
          url: `http://127.0.0.1:${proxy.port}${scenario.path}`,
          connections: scenario.connections,
          seconds: LOAD_SECONDS,
          headers: scenario.headers,
        });
        proxy.child.kill();
      }
      runs.push({ ...scenario, ...figures, bare: bareFigures, ...(bareProxy ? { bareProxy } : {}), ...(page ? { rendered: figures.counted } : {}), trials });
      process.stdout.write('done\n');
    }
    process.stdout.write(`load: ${OVERLOAD_CONNECTIONS} connections × ${LOAD_SECONDS} s on the deep link, /healthz beside it… `);
    const overloadPath = `/projects/${id}`;
    const [overload, health, arrivals] = await Promise.all([
      generate({
        url: `${server.origin}${overloadPath}`,
        connections: OVERLOAD_CONNECTIONS,
        seconds: LOAD_SECONDS,
        headers: { cookie, accept: 'text/html' },
        countBodiesWith: RENDERED,
      }),
      generate({ url: `${server.origin}/healthz`, connections: 1, seconds: LOAD_SECONDS, headers: {} }),
      // Those 200 connections are people already there; these arrive while they are served.
      new Promise((resolve) => setTimeout(resolve, ARRIVALS_AFTER_MS)).then(() =>
        runJson<Arrivals>('arrivals.ts', { port: Number(new URL(server.origin).port), path: overloadPath, cookie, count: ARRIVALS }),
      ),
    ]);
    runs.push({ what: 'rendered deep link page, overload', path: overloadPath, connections: OVERLOAD_CONNECTIONS, ...overload, rendered: overload.counted });
    process.stdout.write('done\n');
    const after = await memory();
    return {
      seconds: LOAD_SECONDS,
      // Several instances run under a primary that serves nothing; one process is the server itself.
      workers: Math.max(1, pids.length - 1),
      runs,
      health,
      arrivals,
      rssMiB: { before: before.rss, after: after.rss },
      heapMiB: { before: before.heap, after: after.heap },
      boundMiB: MEMORY_BOUND_MIB,
    };
  } finally {
    await server.stop();
    await store.stop();
    for (const helper of helpers) helper.kill();
    const dir = tmpdir();
    const mine = (await readdir(dir)).filter((name) => name.startsWith(`ops-console-bench-${process.pid}`));
    await Promise.all(mine.map((name) => rm(join(dir, name), { force: true })));
  }
}

const ratio = (a: number, b: number | undefined) => (b ? (a / b).toFixed(2) : '–');

/** A limit's figures under the console's, with the console's as a ratio of them. */
function beside(run: LoadRun, limit: LoadFigures, what: string, short: string): string {
  return `  ${`  ${what}`.padEnd(38)} ${String(run.connections).padStart(3)} conn. ${limit.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${limit.p50Ms.toFixed(0).padStart(4)} ms  p99 ${limit.p99Ms.toFixed(0).padStart(4)} ms  → console/${short}: ${ratio(run.requestsPerSecond, limit.requestsPerSecond)}× the req/s, ${ratio(run.p99Ms, limit.p99Ms)}× the p99`;
}

export function reportLoad(load: LoadResult): void {
  console.log(
    `\nThe server under load (${load.seconds} s each after ${LOAD_WARMUP_SECONDS} s of the same, not counted; the 50-connection loads ${LOAD_TRIALS} times, the median run shown; ${load.workers} server ${load.workers === 1 ? 'process' : 'instances on one Postgres'}; autocannon, the API stub and the bare server each in a process of their own):\n`,
  );
  for (const run of load.runs) {
    console.log(
      `  ${run.what.padEnd(38)} ${String(run.connections).padStart(3)} conn. ${run.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${run.p50Ms.toFixed(0).padStart(4)} ms  p99 ${run.p99Ms.toFixed(0).padStart(4)} ms  max ${run.maxMs.toFixed(0).padStart(5)} ms  (${run.requests} requests, ${run.non2xx} non-2xx, ${run.errors} errors${run.rendered === undefined ? '' : `, ${run.rendered} rendered`})`,
    );
    if (run.trials && run.trials.length > 1)
      console.log(`      each run: ${run.trials.map((trial) => `${trial.requestsPerSecond.toFixed(0)} req/s p99 ${trial.p99Ms.toFixed(0)} ms`).join('; ')}`);
    if (run.bare) console.log(beside(run, run.bare, 'bare node:http, same bytes', 'bare'));
    if (run.bareProxy) console.log(beside(run, run.bareProxy, 'bare node:http proxy, same stub', 'proxy'));
  }
  console.log(
    `  /healthz beside the overload: p99 ${load.health.p99Ms.toFixed(0)} ms, max ${load.health.maxMs.toFixed(0)} ms (${load.health.requests} requests, ${load.health.non2xx + load.health.errors} failed)`,
  );
  const { arrivals } = load;
  console.log(
    `  ${arrivals.count} people arriving ${ARRIVALS_AFTER_MS / 1_000} s into it, at once: connected within ${arrivals.connectMaxMs.toFixed(0)} ms, first byte p50 ${arrivals.firstByteP50Ms.toFixed(0)} ms, p90 ${arrivals.firstByteP90Ms.toFixed(0)} ms, max ${arrivals.firstByteMaxMs.toFixed(0)} ms (${arrivals.failed} failed)`,
  );
  for (const [what, { before, after }] of [
    ['RSS', load.rssMiB],
    ['live heap after a full GC', load.heapMiB],
  ] as const) {
    console.log(`  server ${what} (all processes): ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after`);
  }
}

export function heapWithinBound(load: LoadResult): boolean {
  return load.heapMiB.after - load.heapMiB.before <= load.boundMiB;
}

/** The issue's load targets: [what, measured, target, met]. */
export function loadTargets(load: LoadResult): [string, string, string, boolean][] {
  const [api, page, overload] = load.runs;
  const lines: [string, string, string, boolean][] = [];
  // How many of those answers were rendered pages rather than the shell (what a page becomes past the render cap), per second.
  const renderedPerSecond = page?.rendered === undefined ? '' : ` (${(page.rendered / load.seconds).toFixed(0)}/s rendered)`;
  if (page)
    lines.push([
      `Load: rendered deep link, ${page.connections} conn.`,
      `${page.requestsPerSecond.toFixed(0)} req/s${renderedPerSecond}, p99 ${page.p99Ms.toFixed(0)} ms`,
      `≥ ${TARGETS.pageRps}, ≤ ${TARGETS.pageP99Ms} ms`,
      page.requestsPerSecond >= TARGETS.pageRps && page.p99Ms <= TARGETS.pageP99Ms,
    ]);
  if (api)
    lines.push([
      `Load: proxied read, ${api.connections} conn.`,
      `${api.requestsPerSecond.toFixed(0)} req/s, p99 ${api.p99Ms.toFixed(0)} ms`,
      `≥ ${TARGETS.apiRps}, ≤ ${TARGETS.apiP99Ms} ms`,
      api.requestsPerSecond >= TARGETS.apiRps && api.p99Ms <= TARGETS.apiP99Ms,
    ]);
  if (overload)
    lines.push([
      `Load: ${overload.connections} conn., slowest answer`,
      `${overload.maxMs.toFixed(0)} ms`,
      `≤ ${TARGETS.overloadMaxMs} ms`,
      overload.maxMs <= TARGETS.overloadMaxMs,
    ]);
  // An answer that never came (refused, or past 30 s) is no answer at all: missed, not fast.
  const arrived = load.arrivals.failed === 0;
  lines.push([
    `Load: ${load.arrivals.count} arriving during it, slowest first byte`,
    arrived ? `${load.arrivals.firstByteMaxMs.toFixed(0)} ms` : `${load.arrivals.failed} unanswered`,
    `≤ ${TARGETS.overloadMaxMs} ms`,
    arrived && load.arrivals.firstByteMaxMs <= TARGETS.overloadMaxMs,
  ]);
  // A /healthz that never answered (a timeout) has no latency at all: it counts as missed, not as 0 ms.
  const healthAnswered = load.health.requests !== 0 && load.health.errors === 0;
  lines.push([
    'Load: /healthz under that load, slowest',
    healthAnswered ? `${load.health.maxMs.toFixed(0)} ms` : `${load.health.errors} timeouts`,
    `< ${TARGETS.healthMaxMs} ms`,
    healthAnswered && load.health.maxMs < TARGETS.healthMaxMs,
  ]);
  lines.push([
    'Load: live heap after full GC, before → after',
    `${load.heapMiB.before.toFixed(0)} → ${load.heapMiB.after.toFixed(0)} MiB`,
    `+≤ ${load.boundMiB} MiB`,
    heapWithinBound(load),
  ]);
  const failed = [...load.runs, load.health].reduce((sum, run) => sum + run.non2xx + run.errors, 0);
  lines.push(['Load: non-2xx answers, errors and timeouts', String(failed), '0', failed === 0]);
  return lines;
}
