// `npm run bench`: the production build's initial JavaScript, how long a deep link to the big project
// takes to show its first operation compared with a static page of the same table (served by a bare
// node:http), the polling budget, long tables, the walk, and the console's server under load (bench/load.ts).
// `npm run bench -- --only=bundle,first-row,load` runs only those parts (also: requests, rows, walk, activity, archive,
// scale, router, stall, live). `scale` (bench/record-scale.ts: a million operations seeded into each store, some ten minutes) runs only
// when asked for; `--scale-operations=N` seeds another number (fewer to try it; ten million: a thousand projects),
// `--scale-stores=postgres` (or pglite) seeds only that store.
// Writes bench/results/latest.json; a whole run also writes docs/benchmarks-results.md (bench/results-page.ts).
import { chromium, type BrowserContext } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import playwrightConfig, { CHROMIUM } from '../playwright.config';
import { OPERATIONS_PAGE_SIZE } from '../src/api/operations';
import { measureActivity, reportActivity } from './activity';
import { measureArchive, reportArchive, type ArchiveResult } from './archive';
import { measureScale, reportScale, scaleOperations, scaleStores, type ScaleResult } from './record-scale';
import { apiClient } from './api';
import { timeToFirstRow } from './first-row';
import { initialJsOrigins, initialScripts, type InitialJsOrigins, type ScriptSize } from './initial-js';
import { measureRequests, reportRequests } from './requests';
import {
  keptSection,
  machineFacts,
  resultsPage,
  targetLines,
  TARGET_ACTIVITY_FIRST_ROW_MS,
  TARGET_FIRST_ROW_RATIO,
  TARGET_INITIAL_JS_KIB,
  type BenchRecord,
  type FirstRows,
} from './results-page';
import { measureRouter, reportRouter, type RouterResult } from './router';
import { measureRows, reportRows } from './rows';
import { measureLoad, reportLoad, type LoadResult } from './load';
import { measureLive, reportLive, type LiveResult } from './live';
import { run, signInContext, simulatorEnv, startConsole, type ConsoleServer } from './server';
import { staticOperationsPage } from './static-page';
import { measureStall, reportStall, type StallResult } from './stall';
import { measureWalk, reportWalk } from './walk';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist', 'client');
const RESULTS = join(ROOT, 'bench', 'results');
/** Written only by a whole run, so the page never mixes figures of different runs. */
const RESULTS_PAGE = join(ROOT, 'docs', 'benchmarks-results.md');
const API_KEY = 'bench-key-0000000000000000000000';

const WARMUPS = 2;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PARTS = ['bundle', 'first-row', 'requests', 'rows', 'walk', 'load', 'activity', 'archive', 'scale', 'router', 'stall', 'live'] as const;
type Part = (typeof PARTS)[number];
/**
 * A run without `--only`, and what makes a run whole: every part but `scale`, whose seeding alone outlasts the rest,
 * `router`, a decision's measurement, and `stall` (bench/stall.ts) and `live` (bench/live.ts), whose figures are kept
 * by hand in docs/benchmarks-results.md for now.
 */
const DEFAULT_PARTS: readonly Part[] = PARTS.filter((part) => part !== 'scale' && part !== 'router' && part !== 'stall' && part !== 'live');
/** The parts that need no build of the console (they start what they measure themselves). */
const UNBUILT_PARTS: readonly Part[] = ['activity', 'archive', 'scale'];

const kib = (bytes: number) => bytes / 1024;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** The static page of the big project's first rows, served by a bare node:http in this process (idle while the browser loads). */
async function serveStaticPage(server: ConsoleServer) {
  const api = apiClient(server.origin, API_KEY);
  const big = await api.bigProject();
  const [operations, branches, endpoints] = await Promise.all([api.firstOperations(big.id, OPERATIONS_PAGE_SIZE), api.branches(big.id), api.endpoints(big.id)]);
  const html = Buffer.from(staticOperationsPage({ project: big, operations, branches, endpoints, now: Date.now() }));
  // At /coop the same bytes with the console's Cross-Origin-Opener-Policy: a page with it gets a renderer
  // process of its own, not the one of the new context's about:blank, which the page without it reuses.
  const bare = http.createServer((req, res) => {
    const coop = req.url === '/coop' ? { 'cross-origin-opener-policy': 'same-origin' } : {};
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': html.length, ...coop });
    res.end(html);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  return { big, operations, url, close: () => new Promise<void>((resolve) => bare.close(() => resolve())) };
}

async function measure(env: NodeJS.ProcessEnv, scripts: ScriptSize[]) {
  const server = await startConsole(env);
  const page = await serveStaticPage(server);
  try {
    return { server: server.origin, ...(await measureFirstRows(server.origin, page.url, page.big, page.operations.length, scripts)) };
  } finally {
    await page.close();
    await server.stop();
  }
}

async function measureFirstRows(
  origin: string,
  staticUrl: string,
  big: Awaited<ReturnType<ReturnType<typeof apiClient>['bigProject']>>,
  firstPageRows: number,
  scripts: ScriptSize[],
): Promise<FirstRows> {
  const urls = {
    app: `${origin}/projects/${encodeURIComponent(big.id)}`,
    static: staticUrl,
    staticCoop: `${staticUrl}coop`,
    floor: `${origin}/floor/index.html?project=${encodeURIComponent(big.id)}`,
    // Activity opened in a fresh session: its first live row (target TARGET_ACTIVITY_FIRST_ROW_MS).
    activity: `${origin}/activity`,
  };
  const signIn = (context: BrowserContext) => signInContext(context, origin, API_KEY);
  const launchOptions = playwrightConfig.use?.launchOptions ?? {};
  const browser = await chromium.launch({ ...launchOptions, executablePath: CHROMIUM, headless: true });
  const samples: Record<keyof typeof urls, number[]> = { app: [], static: [], staticCoop: [], floor: [], activity: [] };
  let appRendered = 0;
  try {
    for (let round = 0; round < WARMUPS + RUNS; round++) {
      // Interleaved, rotating which goes first, so drift on the machine hits all alike.
      const kinds = ['app', 'static', 'staticCoop', 'floor', 'activity'] as const;
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length] ?? 'app');
      for (const which of order) {
        // The static page needs no session; the console and the floor app read the API through it.
        const { ms, serverRendered } = await timeToFirstRow(browser, { url: urls[which], ...(which === 'static' || which === 'staticCoop' ? {} : { signIn }) });
        if (round < WARMUPS) continue;
        samples[which].push(ms);
        if (which === 'app' && serverRendered) appRendered++;
      }
      process.stdout.write(round < WARMUPS ? 'w' : '.');
    }
    process.stdout.write('\n');
  } finally {
    await browser.close();
  }

  const loadAverage = loadavg()[0] ?? 0;
  const initialGzip = scripts.reduce((sum, s) => sum + s.gzipBytes, 0);
  const appMedian = median(samples.app);
  const staticMedian = median(samples.static);
  const floorMedian = median(samples.floor);
  return {
    project: { id: big.id, name: big.name, operations: big.operationCount, firstPageRows },
    initialJs: { gzipKiB: kib(initialGzip), targetKiB: TARGET_INITIAL_JS_KIB, files: scripts },
    firstRow: {
      appMedianMs: appMedian,
      staticMedianMs: staticMedian,
      ratio: appMedian / staticMedian,
      targetRatio: TARGET_FIRST_ROW_RATIO,
      runs: RUNS,
      warmups: WARMUPS,
      appSamplesMs: samples.app,
      /** Runs whose page came rendered by the server (the others went out as the shell past the render deadline). */
      appServerRendered: appRendered,
      staticSamplesMs: samples.static,
      /** bench/floor: the least a React app on the console's libraries does to show the same rows. */
      floorMedianMs: floorMedian,
      floorRatio: floorMedian / staticMedian,
      floorSamplesMs: samples.floor,
      /** The static page with the console's Cross-Origin-Opener-Policy: what that header alone costs the first row. */
      staticCoopMedianMs: median(samples.staticCoop),
      staticCoopSamplesMs: samples.staticCoop,
      activityMedianMs: median(samples.activity),
      activitySamplesMs: samples.activity,
    },
    /** Both timings are inflated when other work competes for the 2 cores; the ratio less so. */
    loadAverage1m: loadAverage,
  };
}

function reportScripts(scripts: readonly ScriptSize[]): void {
  console.log(`\nInitial JS (index.html's scripts and modulepreloads, gzip -9):`);
  for (const f of scripts) {
    console.log(`  ${f.file.padEnd(44)} ${f.how.padEnd(13)} ${kib(f.bytes).toFixed(1).padStart(7)} KiB  ${kib(f.gzipBytes).toFixed(1).padStart(6)} KiB gzip`);
  }
}

function reportOrigins(origins: InitialJsOrigins): void {
  const libraries = origins.libraries.reduce((sum, library) => sum + library.gzipBytes, 0);
  console.log(`\nWhere the initial JS comes from (gzip, each script's share by the characters each source wrote):`);
  console.log(
    `  libraries ${kib(libraries).toFixed(1)} KiB: ${origins.libraries.map((library) => `${library.name} ${kib(library.gzipBytes).toFixed(1)}`).join(', ')}`,
  );
  console.log(
    `  the console's own code ${kib(origins.ownGzipBytes).toFixed(1)} KiB in ${origins.ownModules} modules; the largest: ${origins.largestOwn.map((module) => `${module.file} ${kib(module.gzipBytes).toFixed(1)}`).join(', ')}`,
  );
  console.log(
    `  the libraries alone leave ${(TARGET_INITIAL_JS_KIB - kib(libraries)).toFixed(1)} KiB of the ${TARGET_INITIAL_JS_KIB} KiB target for the console's own code`,
  );
}

function report(result: FirstRows): void {
  const { initialJs, firstRow, project } = result;
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  reportScripts(initialJs.files);
  console.log(
    `\nDeep link to ${project.name} (${project.id}, ${project.operations} operations), first row painted; median of ${firstRow.runs} runs each after ${firstRow.warmups} warm-ups:\n`,
  );
  const rows: [string, string, string, string][] = [
    ['metric', 'value', 'target', ''],
    ['(a) initial JS, gzip', `${initialJs.gzipKiB.toFixed(1)} KiB`, `≤ ${initialJs.targetKiB} KiB`, mark(initialJs.gzipKiB <= initialJs.targetKiB)],
    ['(b) console: first row', `${firstRow.appMedianMs.toFixed(0)} ms`, '', ''],
    ['(c) static page: first row', `${firstRow.staticMedianMs.toFixed(0)} ms`, '', ''],
    ['(d) ratio (b)/(c)', firstRow.ratio.toFixed(2), `≤ ${firstRow.targetRatio.toFixed(1)}`, mark(firstRow.ratio <= firstRow.targetRatio)],
    ['(e) floor React app: first row', `${firstRow.floorMedianMs.toFixed(0)} ms`, '', ''],
    ['(f) ratio (e)/(c)', firstRow.floorRatio.toFixed(2), '', '(the stack itself)'],
    ['(g) ratio (b)/(e)', (firstRow.appMedianMs / firstRow.floorMedianMs).toFixed(2), '', '(the console over the floor)'],
    ['(h) static page with COOP', `${firstRow.staticCoopMedianMs.toFixed(0)} ms`, '', "(the console's Cross-Origin-Opener-Policy added)"],
    ['(i) ratio (b)/(h)', (firstRow.appMedianMs / firstRow.staticCoopMedianMs).toFixed(2), '', '(the console over the same headers)'],
    ...(firstRow.activityMedianMs === undefined
      ? []
      : [
          [
            '(j) Activity, fresh session',
            `${firstRow.activityMedianMs.toFixed(0)} ms`,
            `≤ ${TARGET_ACTIVITY_FIRST_ROW_MS} ms`,
            mark(firstRow.activityMedianMs <= TARGET_ACTIVITY_FIRST_ROW_MS),
          ] satisfies [string, string, string, string],
        ]),
  ];
  for (const [a, b, c, d] of rows) console.log(`  ${a.padEnd(28)} ${b.padStart(10)}  ${c.padEnd(12)} ${d}`);
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
  console.log(
    `\n  range: console ${spread(firstRow.appSamplesMs)}, static ${spread(firstRow.staticSamplesMs)}, static with COOP ${spread(firstRow.staticCoopSamplesMs)}, floor app ${spread(firstRow.floorSamplesMs)}`,
  );
  console.log('  (floor app: bench/floor, React DOM + React Query + router + zod/mini fetching and rendering the same 100 rows, nothing else)');
  console.log(`  console pages rendered by the server: ${firstRow.appServerRendered} of ${firstRow.runs}`);
  console.log(`  machine load (1-min average) at the end: ${result.loadAverage1m.toFixed(2)}`);
}

interface Results {
  firstRows?: FirstRows;
  scripts?: ScriptSize[];
  /** With the bundle part: the initial JS by library and the console's own code. */
  initialJsOrigins?: InitialJsOrigins;
  requests?: Awaited<ReturnType<typeof measureRequests>>;
  rows?: Awaited<ReturnType<typeof measureRows>>;
  walk?: Awaited<ReturnType<typeof measureWalk>>;
  load?: LoadResult;
}

/** Every target this run measured, in one table: what was measured, the target, ok or MISSED. */
function reportTargets(record: BenchRecord): void {
  const mark = (met: boolean | undefined) => (met === undefined ? '' : met ? 'ok' : 'MISSED');
  console.log('\nTargets, all in this run:\n');
  for (const [a, b, c, d] of targetLines(record)) console.log(`  ${a.padEnd(46)} ${b.padStart(24)}  ${c.padEnd(20)} ${mark(d)}`);
  console.log(`\n  machine load (1-min average) at the end: ${(loadavg()[0] ?? 0).toFixed(2)}`);
}

/** `--only=a,b`: the parts to run (every default part without it). */
function partsToRun(argv: readonly string[]): Set<Part> {
  const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  if (only === undefined) return new Set(DEFAULT_PARTS);
  const asked = only.split(',').map((part) => part.trim());
  const unknown = asked.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`unknown bench part(s) ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}`);
  return new Set(asked as Part[]);
}

async function main(): Promise<void> {
  const parts = partsToRun(process.argv);
  const results: Results = {};
  let activity: ReturnType<typeof measureActivity> | undefined;
  const env = simulatorEnv({ SIM_API_KEY: API_KEY });
  if ([...parts].some((part) => !UNBUILT_PARTS.includes(part))) {
    console.log('Building (npm run build: the client and the server, then the floor app into dist/client/floor)…');
    await run('npm', ['run', '-s', 'build'], env);
    if (parts.has('first-row')) await run('npx', ['vite', 'build', '--config', 'bench/floor/vite.config.ts'], env);
    results.scripts = await initialScripts(DIST);
    if (parts.has('bundle')) {
      // The same client build with source maps, apart: what of the initial JS is which library, and what the console's own.
      const mapped = await mkdtemp(join(tmpdir(), 'ops-console-sourcemaps-'));
      try {
        await run('npx', ['vite', 'build', '--sourcemap', '--outDir', mapped, '--emptyOutDir'], env);
        results.initialJsOrigins = await initialJsOrigins(mapped);
      } finally {
        await rm(mapped, { recursive: true, force: true });
      }
    }
  }
  if (parts.has('first-row') && results.scripts) {
    console.log('Starting the console server on a free loopback port…');
    const { server, ...firstRows } = await measure(env, results.scripts);
    console.log(`Measured against ${server}`);
    results.firstRows = firstRows;
  }
  if (parts.has('requests')) {
    const server = await startConsole(env);
    try {
      results.requests = await measureRequests(server, API_KEY);
    } finally {
      await server.stop();
    }
  }
  if (parts.has('rows')) results.rows = await measureRows(env, API_KEY);
  if (parts.has('walk')) results.walk = await measureWalk(env, API_KEY);
  if (parts.has('load')) results.load = await measureLoad(env, API_KEY);
  if (parts.has('activity')) activity = measureActivity();
  let archive: ArchiveResult | undefined;
  if (parts.has('archive')) archive = await measureArchive();
  let scale: ScaleResult | undefined;
  if (parts.has('scale')) scale = await measureScale(scaleOperations(process.argv), scaleStores(process.argv));
  let router: RouterResult | undefined;
  if (parts.has('router')) router = await measureRouter(env, API_KEY);
  let stall: StallResult | undefined;
  if (parts.has('stall')) stall = await measureStall(env, API_KEY);
  let live: LiveResult | undefined;
  if (parts.has('live')) live = await measureLive();

  if (results.firstRows) report(results.firstRows);
  else if (parts.has('bundle') && results.scripts) reportScripts(results.scripts);
  if (results.initialJsOrigins) reportOrigins(results.initialJsOrigins);
  if (results.requests) reportRequests(results.requests);
  if (results.rows) reportRows(results.rows);
  if (results.walk) reportWalk(results.walk);
  if (results.load) reportLoad(results.load);
  if (activity) reportActivity(activity);
  if (archive) reportArchive(archive);
  if (scale) reportScale(scale);
  if (router) reportRouter(router);
  if (stall) reportStall(stall);
  if (live) reportLive(live);
  const { firstRows, ...rest } = results;
  const record: BenchRecord = {
    at: new Date().toISOString(),
    commit: gitCommit(),
    loadAverage1m: loadavg()[0] ?? 0,
    ...firstRows,
    ...rest,
    activity,
    archive,
    scale,
    ...(router ? { router } : {}),
    ...(stall ? { stall } : {}),
  };
  reportTargets(parts.has('bundle') ? record : { ...record, scripts: undefined });
  await mkdir(RESULTS, { recursive: true });
  const whole = DEFAULT_PARTS.every((part) => parts.has(part));
  const file = join(RESULTS, whole ? 'latest.json' : `latest-${[...parts].join('+')}.json`);
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`\nWrote ${file.slice(ROOT.length + 1)}`);
  if (whole) {
    const previous = await readFile(RESULTS_PAGE, 'utf8').catch(() => '');
    await writeFile(RESULTS_PAGE, resultsPage(record, machineFacts(), undefined, keptSection(previous)));
    console.log(`Wrote ${RESULTS_PAGE.slice(ROOT.length + 1)}`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => process.exit(130));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
