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
import { gzipSync } from 'node:zlib';
import playwrightConfig, { CHROMIUM } from '../playwright.config';
import { sendPage } from '../server/http/compression';
import { contentSecurityPolicy } from '../server/http/security-headers';
import { styleHash } from '../server/pages/inline-css';
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
  TARGET_INITIAL_JS_KIB,
  TARGET_PAGE_RATIO,
  TARGET_SERVER_RATIO,
  type BenchRecord,
  type FirstRows,
  type PageBytes,
} from './results-page';
import { measureRouter, reportRouter, type RouterResult } from './router';
import { measureRows, reportRows } from './rows';
import { measureLoad, reportLoad, type LoadResult } from './load';
import { measureLive, reportLive, type LiveResult } from './live';
import { run, sessionCookie, signInContext, simulatorEnv, startConsole, type ConsoleServer } from './server';
import { STATIC_PAGE_STYLE, staticOperationsPage } from './static-page';
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

/** Response headers a file server sets itself (or that belong to the one response), not replayed. */
const NOT_REPLAYED = new Set(['set-cookie', 'content-length', 'content-encoding', 'vary', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The pages the console's deep link is compared with, as files served by a bare node:http in this process (idle
 * while the browser loads), compressed as the console compresses (server/http/compression.ts): (b) the very page
 * the console sent for the deep link, with the console's own headers (its CSP, COOP and the rest), so (a)/(b) is
 * the server's part; (c) a bare table of the same rows as a plain file (its content type alone), and (c') the same
 * with the console's headers (its CSP allowing the table's style by hash): what the headers alone cost (COOP gives
 * the page a renderer process of its own). Every other path (the page's CSS and code) is the console's.
 */
async function servePageFiles(server: ConsoleServer) {
  const api = apiClient(server.origin, API_KEY);
  const big = await api.bigProject();
  const [operations, branches, endpoints] = await Promise.all([api.firstOperations(big.id, OPERATIONS_PAGE_SIZE), api.branches(big.id), api.endpoints(big.id)]);
  const bare = staticOperationsPage({ project: big, operations, branches, endpoints, now: Date.now() });
  const deepLink = `/projects/${encodeURIComponent(big.id)}`;
  const cookie = await sessionCookie(server.origin, API_KEY);
  const ask = () => fetch(`${server.origin}${deepLink}`, { headers: { cookie, accept: 'text/html', 'accept-encoding': 'identity' } });
  // The page as the console renders it: a busy machine may send one as the shell past the render deadline, so a few tries.
  let sent = await ask();
  let page = await sent.text();
  for (let tries = 1; tries < 5 && !page.includes('"renderedAt":'); tries++) {
    sent = await ask();
    page = await sent.text();
  }
  if (!sent.ok || !page.includes('"renderedAt":'))
    throw new Error(`the console did not render ${deepLink} (${sent.status}): the page as a file would be its shell`);
  const headers: Record<string, string> = {};
  sent.headers.forEach((value, name) => {
    if (!NOT_REPLAYED.has(name)) headers[name] = value;
  });
  const bareHeaders = { ...headers, 'content-security-policy': contentSecurityPolicy([styleHash(STATIC_PAGE_STYLE)]) };
  const consoleUrl = new URL(server.origin);
  const files = http.createServer((req, res) => {
    const file =
      req.url === '/file'
        ? { html: page, headers }
        : req.url === '/static'
          ? { html: bare, headers: { 'content-type': 'text/html; charset=utf-8' } }
          : req.url === '/static-headers'
            ? { html: bare, headers: bareHeaders }
            : undefined;
    if (file) {
      for (const [name, value] of Object.entries(file.headers)) res.setHeader(name, value);
      sendPage(req, res, file.html);
      return;
    }
    const forwarded = http.request({ host: consoleUrl.hostname, port: consoleUrl.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  const bytes = (html: string): PageBytes => ({ raw: Buffer.byteLength(html), gzip: gzipSync(html).length });
  return {
    big,
    operations,
    urls: { file: `${origin}/file`, static: `${origin}/static`, staticHeaders: `${origin}/static-headers` },
    bytes: { file: bytes(page), static: bytes(bare) },
    close: () => new Promise<void>((resolve) => files.close(() => resolve())),
  };
}

async function measure(env: NodeJS.ProcessEnv, scripts: ScriptSize[]) {
  const server = await startConsole(env);
  const files = await servePageFiles(server);
  try {
    return { server: server.origin, ...(await measureFirstRows(server.origin, files, scripts)) };
  } finally {
    await files.close();
    await server.stop();
  }
}

async function measureFirstRows(origin: string, files: Awaited<ReturnType<typeof servePageFiles>>, scripts: ScriptSize[]): Promise<FirstRows> {
  const { big } = files;
  const urls = {
    app: `${origin}/projects/${encodeURIComponent(big.id)}`,
    file: files.urls.file,
    static: files.urls.static,
    staticHeaders: files.urls.staticHeaders,
    floor: `${origin}/floor/index.html?project=${encodeURIComponent(big.id)}`,
    // Activity opened in a fresh session: its first live row (target TARGET_ACTIVITY_FIRST_ROW_MS).
    activity: `${origin}/activity`,
  };
  const signIn = (context: BrowserContext) => signInContext(context, origin, API_KEY);
  const launchOptions = playwrightConfig.use?.launchOptions ?? {};
  const browser = await chromium.launch({ ...launchOptions, executablePath: CHROMIUM, headless: true });
  const samples: Record<keyof typeof urls, number[]> = { app: [], file: [], static: [], staticHeaders: [], floor: [], activity: [] };
  let appRendered = 0;
  try {
    for (let round = 0; round < WARMUPS + RUNS; round++) {
      // Interleaved, rotating which goes first, so drift on the machine hits all alike.
      const kinds = ['app', 'file', 'static', 'staticHeaders', 'floor', 'activity'] as const;
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length] ?? 'app');
      for (const which of order) {
        // The files need no session; the console and the floor app read the API through it.
        const { ms, serverRendered } = await timeToFirstRow(browser, {
          url: urls[which],
          ...(which === 'app' || which === 'floor' || which === 'activity' ? { signIn } : {}),
        });
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
  const fileMedian = median(samples.file);
  const staticMedian = median(samples.static);
  const floorMedian = median(samples.floor);
  const staticHeadersMedian = median(samples.staticHeaders);
  return {
    project: { id: big.id, name: big.name, operations: big.operationCount, firstPageRows: files.operations.length },
    initialJs: { gzipKiB: kib(initialGzip), targetKiB: TARGET_INITIAL_JS_KIB, files: scripts },
    firstRow: {
      appMedianMs: appMedian,
      fileMedianMs: fileMedian,
      staticMedianMs: staticMedian,
      serverRatio: appMedian / fileMedian,
      targetServerRatio: TARGET_SERVER_RATIO,
      // Like with like: the page and the bare table both with the console's headers (COOP alone gives a page a
      // renderer of its own, a cost of the headers, not of the page's weight); against the plain (c) too, for the record.
      pageRatio: fileMedian / staticHeadersMedian,
      plainPageRatio: fileMedian / staticMedian,
      targetPageRatio: TARGET_PAGE_RATIO,
      runs: RUNS,
      warmups: WARMUPS,
      appSamplesMs: samples.app,
      /** Runs whose page came rendered by the server (the others went out as the shell past the render deadline). */
      appServerRendered: appRendered,
      fileSamplesMs: samples.file,
      staticSamplesMs: samples.static,
      staticHeadersMedianMs: staticHeadersMedian,
      staticHeadersSamplesMs: samples.staticHeaders,
      bytes: files.bytes,
      /** bench/floor: the least a React app on the console's libraries does to show the same rows. */
      floorMedianMs: floorMedian,
      floorRatio: floorMedian / staticMedian,
      floorSamplesMs: samples.floor,
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
  const size = (bytes: PageBytes) => `${kib(bytes.raw).toFixed(1)} KiB, ${kib(bytes.gzip).toFixed(1)} KiB gzip`;
  const rows: [string, string, string, string][] = [
    ['metric', 'value', 'target', ''],
    ['initial JS, gzip', `${initialJs.gzipKiB.toFixed(1)} KiB`, `≤ ${initialJs.targetKiB} KiB`, mark(initialJs.gzipKiB <= initialJs.targetKiB)],
    ['(a) console: first row', `${firstRow.appMedianMs.toFixed(0)} ms`, '', ''],
    ['(b) its page as a file', `${firstRow.fileMedianMs.toFixed(0)} ms`, '', `(${size(firstRow.bytes.file)})`],
    ['(c) bare table as a file', `${firstRow.staticMedianMs.toFixed(0)} ms`, '', `(${size(firstRow.bytes.static)})`],
    ["(c') bare table, its headers", `${firstRow.staticHeadersMedianMs.toFixed(0)} ms`, '', "(the console's CSP, COOP…)"],
    [
      'ratio (a)/(b): the server',
      firstRow.serverRatio.toFixed(2),
      `≤ ${firstRow.targetServerRatio.toFixed(2)}`,
      mark(firstRow.serverRatio <= firstRow.targetServerRatio),
    ],
    [
      "ratio (b)/(c'): the page",
      firstRow.pageRatio.toFixed(2),
      `≤ ${firstRow.targetPageRatio.toFixed(2)}`,
      mark(firstRow.pageRatio <= firstRow.targetPageRatio),
    ],
    ...(firstRow.plainPageRatio === undefined
      ? []
      : [['ratio (b)/(c)', firstRow.plainPageRatio.toFixed(2), '', "(the headers' cost in it too)"] satisfies [string, string, string, string]]),
    ['floor React app: first row', `${firstRow.floorMedianMs.toFixed(0)} ms`, '', `(${firstRow.floorRatio.toFixed(2)} × the bare table: the stack itself)`],
    ...(firstRow.activityMedianMs === undefined
      ? []
      : [
          [
            'Activity, fresh session',
            `${firstRow.activityMedianMs.toFixed(0)} ms`,
            `≤ ${TARGET_ACTIVITY_FIRST_ROW_MS} ms`,
            mark(firstRow.activityMedianMs <= TARGET_ACTIVITY_FIRST_ROW_MS),
          ] satisfies [string, string, string, string],
        ]),
  ];
  for (const [a, b, c, d] of rows) console.log(`  ${a.padEnd(28)} ${b.padStart(10)}  ${c.padEnd(12)} ${d}`);
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
  console.log(
    `\n  range: (a) ${spread(firstRow.appSamplesMs)}, (b) ${spread(firstRow.fileSamplesMs)}, (c) ${spread(firstRow.staticSamplesMs)}, (c') ${spread(firstRow.staticHeadersSamplesMs)}, floor app ${spread(firstRow.floorSamplesMs)}`,
  );
  console.log("  ((b), (c) and (c'): served by a bare node:http, compressed as the console does; (b) and (c') with the console's headers; bench/run.ts)");
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
