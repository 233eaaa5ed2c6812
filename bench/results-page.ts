// What one run of `npm run bench` measured (the record in bench/results/latest.json), the targets it is held
// to, and the page a whole run writes from it, docs/benchmarks-results.md: the date, the machine and the
// figures as tables, so no document carries figures typed in by hand.
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { activityRowMet, type ActivityBenchRow } from './activity';
import type { ArchiveResult } from './archive';
import type { ScaleResult, Timing } from './record-scale';
import type { InitialJsOrigins, ScriptSize } from './initial-js';
import { loadTargets, type LoadFigures, type LoadResult } from './load';
import { TARGET_PER_INTERVAL, TARGET_PER_SECOND, type measureRequests } from './requests';
import type { RowsResult } from './rows';
import type { WalkResult } from './walk';

export const TARGET_INITIAL_JS_KIB = 120;
/** The console's deep link against its own rendered page served as a file: the server's part (docs/rendering.md). */
export const TARGET_SERVER_RATIO = 1.25;
/**
 * The rendered page as a file against a bare table of the same rows as a file, both with the console's headers: the
 * page's weight (the headers' own cost, a renderer of its own for COOP, is in neither ratio's target).
 */
export const TARGET_PAGE_RATIO = 2;
/** Activity opened in a fresh session: its first live row within this many milliseconds. */
export const TARGET_ACTIVITY_FIRST_ROW_MS = 3_000;

/** A page's size as sent: raw, and gzip (level 6) for a size that does not depend on the encoding negotiated. */
export interface PageBytes {
  raw: number;
  gzip: number;
}

/**
 * The deep link's first row (a) against the same rendered page served as a file with the console's headers (b) and
 * a bare table of the same rows as a plain file (c); the floor app and Activity beside (bench/run.ts).
 */
export interface FirstRows {
  project: { id: string; name: string; operations: number; firstPageRows: number };
  initialJs: { gzipKiB: number; targetKiB: number; files: ScriptSize[] };
  firstRow: {
    /** (a) the console's deep link. */
    appMedianMs: number;
    /** (b) the page the console sent for it, saved and served as a file. */
    fileMedianMs: number;
    /** (c) a bare table of the same rows, served as a file. */
    staticMedianMs: number;
    /** (a)/(b): what the server adds to its own page. */
    serverRatio: number;
    targetServerRatio: number;
    /** (b)/(c'): what the page's weight costs against the bare table, both with the console's headers. */
    pageRatio: number;
    /** (b)/(c): the same against the plain bare table, the headers' cost in it too (runs before 2026-12-04 have none). */
    plainPageRatio?: number;
    targetPageRatio: number;
    runs: number;
    warmups: number;
    appSamplesMs: number[];
    /** Runs whose page came rendered by the server (the others went out as the shell). */
    appServerRendered: number;
    fileSamplesMs: number[];
    staticSamplesMs: number[];
    /** (c') the bare table with the console's headers (CSP, COOP…): what the headers alone cost. */
    staticHeadersMedianMs: number;
    staticHeadersSamplesMs: number[];
    bytes: { file: PageBytes; static: PageBytes };
    /** bench/floor: the least a React app on the console's libraries does to show the same rows. */
    floorMedianMs: number;
    floorRatio: number;
    floorSamplesMs: number[];
    /** /activity in a fresh session (signed in, nothing cached), to its first row: absent from records before it was measured. */
    activityMedianMs?: number;
    activitySamplesMs?: number[];
  };
  /** Both timings are inflated when other work competes for the cores; the ratio less so. */
  loadAverage1m: number;
}

export type RequestsResult = Awaited<ReturnType<typeof measureRequests>>;

/** What a run measured; each part is there when it ran (`--only` runs some). */
export interface BenchRecord extends Partial<FirstRows> {
  /** ISO time the run ended. */
  at: string;
  commit: string | null;
  scripts?: ScriptSize[] | undefined;
  initialJsOrigins?: InitialJsOrigins | undefined;
  requests?: RequestsResult | undefined;
  rows?: RowsResult | undefined;
  walk?: WalkResult | undefined;
  load?: LoadResult | undefined;
  activity?: ActivityBenchRow[] | undefined;
  archive?: ArchiveResult | undefined;
  /** Only when asked for (`--only=scale`, or with the default parts): bench/record-scale.ts. */
  scale?: ScaleResult | undefined;
}

export interface MachineFacts {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** 1, 5 and 15 minutes, when the page is written (the end of the run). */
  loadAverage: number[];
}

export function machineFacts(): MachineFacts {
  const all = cpus();
  return {
    cpu: all[0]?.model.trim() ?? 'unknown',
    cores: all.length,
    memoryGiB: totalmem() / 1024 ** 3,
    os: `${osType()} ${release()}`,
    node: process.version,
    loadAverage: loadavg(),
  };
}

const kib = (bytes: number) => bytes / 1024;

/** A figure with `digits` decimals, or a dash for one the run did not produce. */
function fixed(value: number | undefined, digits = 0): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

/** Every target the run measured: what, the figure, the target, met. */
export function targetLines(record: BenchRecord): [string, string, string, boolean | undefined][] {
  const { firstRow, scripts, requests, rows, walk, load } = record;
  const lines: [string, string, string, boolean | undefined][] = [];
  if (scripts) {
    const gzip = kib(scripts.reduce((sum, s) => sum + s.gzipBytes, 0));
    lines.push(['Initial JS, gzip', `${gzip.toFixed(1)} KiB`, `≤ ${TARGET_INITIAL_JS_KIB} KiB`, gzip <= TARGET_INITIAL_JS_KIB]);
  }
  if (firstRow) {
    lines.push([
      'First row: floor React app / bare table',
      `${fixed(firstRow.floorRatio, 2)} (${fixed(firstRow.floorMedianMs)} / ${fixed(firstRow.staticMedianMs)} ms)`,
      '',
      undefined,
    ]);
    lines.push([
      'First row: console / its page as a file',
      `${fixed(firstRow.serverRatio, 2)} (${fixed(firstRow.appMedianMs)} / ${fixed(firstRow.fileMedianMs)} ms)`,
      `≤ ${firstRow.targetServerRatio.toFixed(2)}`,
      firstRow.serverRatio <= firstRow.targetServerRatio,
    ]);
    lines.push([
      'First row: its page as a file / bare table',
      `${fixed(firstRow.pageRatio, 2)} (${fixed(firstRow.fileMedianMs)} / ${fixed(firstRow.plainPageRatio === undefined ? firstRow.staticMedianMs : firstRow.staticHeadersMedianMs)} ms)`,
      `≤ ${firstRow.targetPageRatio.toFixed(2)}`,
      firstRow.pageRatio <= firstRow.targetPageRatio,
    ]);
    if (firstRow.activityMedianMs !== undefined)
      lines.push([
        'Activity, fresh session: first row',
        `${fixed(firstRow.activityMedianMs)} ms`,
        `≤ ${TARGET_ACTIVITY_FIRST_ROW_MS.toLocaleString('en')} ms`,
        firstRow.activityMedianMs <= TARGET_ACTIVITY_FIRST_ROW_MS,
      ]);
  }
  for (const p of rows?.phases.filter((phase) => phase.judged) ?? []) {
    lines.push([`INP p98, ${p.phase}`, `${p.p98Ms.toFixed(0)} ms`, `< ${rows?.targetInpMs ?? 0} ms`, p.p98Ms < (rows?.targetInpMs ?? 0)]);
  }
  const heaviest = rows?.snapshots.at(-1);
  if (heaviest) lines.push([`At ${heaviest.rows} rows: heap, DOM`, `${heaviest.jsHeapUsedMiB.toFixed(1)} MiB, ${heaviest.domNodes} el.`, 'bounded', undefined]);
  for (const s of requests?.scenarios ?? []) {
    const tabs = s.tabs === 1 ? '1 tab' : `${s.tabs} tabs`;
    lines.push([
      `Polls per interval, ${tabs}`,
      `${s.perInterval.toFixed(2)} (max ${s.busiestInterval})`,
      `≤ ${TARGET_PER_INTERVAL}`,
      s.busiestInterval <= TARGET_PER_INTERVAL,
    ]);
    lines.push([`Most requests in 1 s, ${tabs}`, String(s.maxPerSecond), `≤ ${TARGET_PER_SECOND}`, s.maxPerSecond <= TARGET_PER_SECOND]);
    lines.push([`Requests while hidden, ${tabs}`, String(s.hidden), '0', s.hidden === 0]);
  }
  if (walk) {
    const slowest = Math.max(...walk.runs.map((r) => r.ms));
    const busiest = Math.max(...walk.runs.map((r) => r.maxPerSecond));
    const found = walk.runs.every((r) => r.matches === walk.failedByApi && r.rateLimited === 0);
    lines.push([
      'Walk: every failed op of 20,000 (median)',
      `${walk.medianMs} ms (max ${slowest})`,
      `< ${walk.targetMs} ms`,
      walk.medianMs < walk.targetMs && found,
    ]);
    lines.push([
      'Walk: requests (list, of 1,000), most in 1 s',
      `${walk.runs[0]?.listRequests ?? 0} (${walk.runs[0]?.walkRequests ?? 0}), ${busiest}`,
      `≤ ${walk.targetPerSecond}/s`,
      busiest <= walk.targetPerSecond,
    ]);
  }
  for (const line of load ? loadTargets(load) : []) lines.push(line);
  for (const store of record.scale?.stores ?? []) {
    for (const t of store.timings) {
      const { ms, as, met } = judged(t);
      lines.push([`Scale, ${store.store}: ${t.what}`, `${ms.toFixed(1)} ms${as === 'p95' ? ' (p95)' : ''}`, `≤ ${t.targetMs} ms`, met]);
    }
  }
  return lines;
}

/**
 * The figure a timing's target judges, and whether it met it: its p95 where it asks for one, else its median (and so
 * a record from before).
 */
export function judged(t: Timing): { ms: number; as: 'median' | 'p95'; met: boolean } {
  const ms = t.byP95 === true ? t.serverP95Ms : t.serverMedianMs;
  return { ms, as: t.byP95 === true ? 'p95' : 'median', met: ms <= t.targetMs };
}

/** The samples a timing's median and p95 rest on: its own, or for a record from before, the scale's runs. */
export const samplesOf = (t: Timing, scaleRuns: number): number => t.runs ?? scaleRuns;

/** A Markdown table; `|` inside a cell is escaped. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [header, header.map(() => '---'), ...rows].map((row) => `| ${row.map(cell).join(' | ')} |`).join('\n');
}

const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? 'met' : '**missed**');

function loadRow(what: string, connections: number, figures: LoadFigures, rendered?: number): string[] {
  const cells = [
    what,
    String(connections),
    fixed(figures.requestsPerSecond),
    fixed(figures.p50Ms),
    fixed(figures.p99Ms),
    fixed(figures.maxMs),
    fixed(figures.non2xx + figures.errors),
  ];
  return [...cells, rendered === undefined ? '' : fixed(rendered)];
}

/** A page's size, raw and gzip, in KiB. */
function sizes(bytes: PageBytes): string {
  return `${fixed(kib(bytes.raw), 1)} KiB, ${fixed(kib(bytes.gzip), 1)} KiB gzip`;
}

function firstRowSection({ firstRow, project }: BenchRecord): string[] {
  if (!firstRow) return [];
  const rows: string[][] = [
    ['(a) Console (rendered by its server in ' + `${firstRow.appServerRendered} of ${firstRow.runs})`, fixed(firstRow.appMedianMs), ''],
    [`(b) The same page as a file (${sizes(firstRow.bytes.file)})`, fixed(firstRow.fileMedianMs), ''],
    [`(c) A bare table of the same rows as a file (${sizes(firstRow.bytes.static)})`, fixed(firstRow.staticMedianMs), ''],
    ["(c') The bare table with the console's headers (CSP, COOP…)", fixed(firstRow.staticHeadersMedianMs), ''],
    [
      '(a)/(b): the server',
      fixed(firstRow.serverRatio, 2),
      `target ≤ ${firstRow.targetServerRatio.toFixed(2)}: ${verdict(firstRow.serverRatio <= firstRow.targetServerRatio)}`,
    ],
    [
      firstRow.plainPageRatio === undefined ? '(b)/(c): the page' : "(b)/(c'): the page, both with the console's headers",
      fixed(firstRow.pageRatio, 2),
      `target ≤ ${firstRow.targetPageRatio.toFixed(2)}: ${verdict(firstRow.pageRatio <= firstRow.targetPageRatio)}`,
    ],
    ['Floor React app (bench/floor)', fixed(firstRow.floorMedianMs), `${fixed(firstRow.floorRatio, 2)} × the bare table`],
    ...(firstRow.activityMedianMs === undefined
      ? []
      : [
          [
            'Activity (/activity), fresh session',
            fixed(firstRow.activityMedianMs),
            `target ≤ ${TARGET_ACTIVITY_FIRST_ROW_MS.toLocaleString('en')} ms: ${verdict(firstRow.activityMedianMs <= TARGET_ACTIVITY_FIRST_ROW_MS)}`,
          ],
        ]),
  ];
  const where = project
    ? `a deep link to ${project.name} (${project.operations.toLocaleString('en')} operations, ${project.firstPageRows} rows on its first page)`
    : 'a deep link to the big project';
  return [
    '## First row',
    '',
    `From navigation to the frame after the first operation link is in the DOM, ${where}; median of ${firstRow.runs} runs after ${firstRow.warmups} warm-ups, the pages interleaved; (b) and (c) are served by a bare node:http, compressed as the console does, (b) with the console's headers (its CSP, COOP…); Activity is its own page, to its first live row.`,
    '',
    table(['Page', 'ms', ''], rows),
    '',
  ];
}

function initialJsSection({ scripts, initialJsOrigins: origins }: BenchRecord): string[] {
  if (!scripts && !origins) return [];
  const lines = ['## Initial JS', ''];
  if (scripts) {
    const name = (file: string) => (file.startsWith('/') ? `\`${file}\`` : file);
    lines.push(
      table(
        ['File', 'Loaded as', 'KiB', 'KiB gzip'],
        scripts.map((s) => [name(s.file), s.how, fixed(kib(s.bytes), 1), fixed(kib(s.gzipBytes), 1)]),
      ),
      '',
    );
  }
  if (origins) {
    const libraries = origins.libraries.reduce((sum, library) => sum + library.gzipBytes, 0);
    lines.push(
      `Where it comes from (gzip, each script's share by the characters each source wrote): the libraries ${fixed(kib(libraries), 1)} KiB, the console's own code ${fixed(kib(origins.ownGzipBytes), 1)} KiB in ${origins.ownModules} modules.`,
      '',
      table(
        ['Library', 'KiB gzip'],
        origins.libraries.map((library) => [library.name, fixed(kib(library.gzipBytes), 1)]),
      ),
      '',
    );
    if (origins.largestOwn.length > 0)
      lines.push(
        table(
          ["The console's largest modules", 'KiB gzip'],
          origins.largestOwn.map((module) => [`\`${module.file}\``, fixed(kib(module.gzipBytes), 1)]),
        ),
        '',
      );
  }
  return lines;
}

function requestsSection({ requests }: BenchRecord): string[] {
  if (!requests) return [];
  const rows = requests.scenarios.map((s) => [
    String(s.tabs),
    `${s.perInterval.toFixed(2)} (max ${s.busiestInterval})`,
    s.allPerInterval.toFixed(2),
    String(s.maxPerSecond),
    String(s.hidden),
  ]);
  return [
    '## Request budget',
    '',
    `${requests.watched} watched operations, poll interval ${requests.pollMs} ms, steady state over ${requests.windowIntervals} intervals.`,
    '',
    table(['Tabs', 'Polls per interval', 'All requests per interval', 'Most in 1 s', 'While hidden'], rows),
    '',
  ];
}

function rowsSection({ rows }: BenchRecord): string[] {
  if (!rows) return [];
  const phases = rows.phases.map((p) => [
    p.phase,
    String(p.interactions),
    fixed(p.medianMs),
    fixed(p.p98Ms),
    fixed(p.maxMs),
    p.judged ? `p98 < ${rows.targetInpMs} ms: ${verdict(p.p98Ms < rows.targetInpMs)}` : '',
  ]);
  const snapshots = rows.snapshots.map((s) => [s.rows.toLocaleString('en'), fixed(s.jsHeapUsedMiB, 1), String(s.domNodes), String(s.renderedRows)]);
  return [
    '## Rows responsiveness',
    '',
    `${rows.project.name}: interaction to next paint (per interaction its longest Event Timing entry), ms.`,
    '',
    table(['Phase', 'Interactions', 'Median', 'p98', 'Max', 'Target'], phases),
    '',
    table(['Rows loaded', 'JS heap after GC, MiB', 'DOM elements', 'Rows rendered'], snapshots),
    '',
  ];
}

function walkSection({ walk }: BenchRecord): string[] {
  if (!walk) return [];
  const runs = walk.runs.map((r, i) => [
    String(i + 1),
    String(r.ms),
    `${r.matches} of ${walk.failedByApi}`,
    String(r.listRequests),
    String(r.walkRequests),
    String(r.allRequests),
    String(r.maxPerSecond),
    String(r.rateLimited),
  ]);
  return [
    '## Filter walk',
    '',
    `\`?status=failed\` over ${walk.project.name}, to "Searched the whole history": median ${walk.medianMs} ms (target < ${walk.targetMs} ms).`,
    '',
    table(['Run', 'ms', 'Matches', 'List requests', 'Of 1,000', 'All requests', 'Most in 1 s', '429s'], runs),
    '',
  ];
}

function loadSection({ load }: BenchRecord): string[] {
  if (!load) return [];
  const header = ['Load', 'Connections', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'Failed', 'Rendered pages'];
  const rows: string[][] = [];
  for (const run of load.runs) {
    rows.push(loadRow(`**${run.what}**`, run.connections, run, run.rendered));
    const trials = run.trials && run.trials.length > 1 ? run.trials : [];
    for (const [i, trial] of trials.entries()) rows.push(loadRow(`run ${i + 1} of ${trials.length}`, run.connections, trial));
    if (run.bare) rows.push(loadRow('beside it: bare node:http, same bytes', run.connections, run.bare));
    if (run.bareProxy) rows.push(loadRow('beside it: bare node:http proxy, same stub', run.connections, run.bareProxy));
  }
  rows.push(loadRow('/healthz beside the overload', 1, load.health));
  const { arrivals } = load;
  return [
    '## The server under load',
    '',
    `${load.seconds} s a run, ${load.workers} server ${load.workers === 1 ? 'process' : 'processes'}; each 50-connection load's median run by req/s (its failures summed over every run).`,
    '',
    table(header, rows),
    '',
    table(
      ['People arriving during the overload', 'Connected within, ms', 'First byte p50, ms', 'p90, ms', 'max, ms', 'Failed'],
      [
        [
          String(arrivals.count),
          fixed(arrivals.connectMaxMs),
          fixed(arrivals.firstByteP50Ms),
          fixed(arrivals.firstByteP90Ms),
          fixed(arrivals.firstByteMaxMs),
          String(arrivals.failed),
        ],
      ],
    ),
    '',
    table(
      ['Every server process', 'Before, MiB', 'After, MiB'],
      [
        ['Resident', fixed(load.rssMiB.before), fixed(load.rssMiB.after)],
        ['Live heap after a full GC', fixed(load.heapMiB.before), fixed(load.heapMiB.after)],
      ],
    ),
    '',
  ];
}

function activitySection({ activity }: BenchRecord): string[] {
  if (!activity) return [];
  const rows = activity.map((r) => [
    String(r.projects),
    String(r.busy),
    r.requestsPerMinute.toFixed(1),
    String(r.mostInAMinute),
    `${fixed(r.roundMs / 1000)} s`,
    `${fixed(r.detectionMedianMs / 1000, 1)} / ${fixed(r.detectionMaxMs / 1000, 1)} s`,
    verdict(activityRowMet(r)),
  ]);
  return [
    '## Activity across projects',
    '',
    `The scheduler over 30 simulated minutes at a budget of ${activity[0]?.budgetPerMinute ?? '–'} a minute (targets: never over the budget in any 60 s; a new operation in an idle project read within two rounds).`,
    '',
    table(['Projects', 'Busy', 'Requests a minute', 'Most in 60 s', 'Round', 'New operation read within, median / max', 'Targets'], rows),
    '',
  ];
}

function archiveSection({ archive }: BenchRecord): string[] {
  if (!archive) return [];
  const rows: string[][] = [
    ['Store first open (PGlite initdb and migrations)', `${fixed(archive.storeOpenMs)} ms`],
    [
      'Backfill of every project',
      `${fixed(archive.backfillMs / 1000, 1)} s in ${archive.backfillRequests} API requests (${archive.operations.toLocaleString('en')} operations in the big project)`,
    ],
    [
      `\`?${archive.filter.search}\` from the store`,
      `${archive.filter.matches} matches, ${fixed(archive.filter.serverMs, 1)} ms server time, ${fixed(archive.filter.totalMs, 1)} ms round trip`,
    ],
    ...archive.activity.map(({ viewers, apiRequestsPerMinute }) => [`API requests a minute, ${viewers} on Activity`, fixed(apiRequestsPerMinute, 1)]),
  ];
  return ['## History archive', '', table(['What', 'Measured'], rows), ''];
}

/** The whole record at scale, when the run measured it (not one of a default run's parts). */
function scaleSection({ scale }: BenchRecord): string[] {
  if (!scale) return [];
  const rows = scale.stores.flatMap((store) => [
    [
      store.store,
      'Seed',
      `${Number.isNaN(store.seedMs) ? 'kept from an earlier run' : `${fixed(store.seedMs / 1_000)} s`} (${store.transitions.toLocaleString('en')} transitions)`,
      '',
      '',
    ],
    ...(store.upkeepMs === undefined ? [] : [[store.store, 'Upkeep (vacuum and analyze)', `${fixed(store.upkeepMs / 1_000)} s`, '', '']]),
    [store.store, 'Size on disk', `${fixed(store.sizeBytes / 1024 ** 2)} MiB`, '', ''],
    ...(store.sharedBuffers === undefined ? [] : [[store.store, 'Shared buffers', store.sharedBuffers, '', '']]),
    ...store.timings.map((t) => [
      store.store,
      t.what,
      `${fixed(t.serverMedianMs, 1)} ms (p95 ${fixed(t.serverP95Ms, 1)} of ${samplesOf(t, scale.runs)}), ${t.rows} rows`,
      `≤ ${t.targetMs} ms${t.byP95 === true ? ', p95' : ''}`,
      verdict(judged(t).met),
    ]),
  ]);
  return [
    '## The whole record at scale',
    '',
    `${scale.operations.toLocaleString('en')} operations over three years across ${scale.projects} projects (the busiest: ${scale.busiest.operations.toLocaleString('en')}); the server's own time (Server-Timing), median and p95 of the runs named (${scale.runs} where none is).`,
    '',
    table(['Store', 'What', 'Measured', 'Target', ''], rows),
    '',
  ];
}

const PARTS: [string, (record: BenchRecord) => boolean][] = [
  ['initial JS', (r) => r.scripts !== undefined],
  ['first row', (r) => r.firstRow !== undefined],
  ['request budget', (r) => r.requests !== undefined],
  ['rows responsiveness', (r) => r.rows !== undefined],
  ['filter walk', (r) => r.walk !== undefined],
  ['the server under load', (r) => r.load !== undefined],
  ['activity', (r) => r.activity !== undefined],
  ['history archive', (r) => r.archive !== undefined],
];

/** The page's last section: figures measured outside the bench (tests, CI runs), each under a dated heading, kept by every run. */
export const KEPT_HEADING = '## Measured outside the bench';

/** The kept section of the page as it was (from KEPT_HEADING to its end), to carry into the next; '' when it has none. */
export function keptSection(previous: string): string {
  const at = previous.indexOf(`\n${KEPT_HEADING}\n`);
  return at < 0 ? '' : previous.slice(at + 1);
}

/**
 * docs/benchmarks-results.md for `record` measured on `machine`. `provenance`, when given, says where figures
 * came from that were not written by a run of this bench on this machine; `kept` is the kept section (keptSection).
 */
export function resultsPage(record: BenchRecord, machine: MachineFacts, provenance?: string, kept = ''): string {
  const when = record.at.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
  const missing = PARTS.filter(([, has]) => !has(record)).map(([name]) => name);
  // A figure the record lacks (NaN) is a dash, and its target is not judged.
  const targets = targetLines(record).map(([what, value, target, met]) =>
    value.includes('NaN') ? [what, value.replaceAll('NaN', '–'), target, ''] : [what, value, target, verdict(met)],
  );
  const lines = [
    '> Written by `npm run bench` (bench/results-page.ts) at the end of a whole run; not edited by hand, but for its last section, which a run keeps. What each figure measures: [benchmarks.md](benchmarks.md).',
    '',
    '# Benchmark results',
    '',
    ...(provenance ? [provenance, ''] : []),
    table(
      ['Run', ''],
      [
        ['Date', when],
        ['Commit', record.commit ? `\`${record.commit}\`` : 'unknown'],
        ['CPU', `${machine.cpu}, ${machine.cores} cores`],
        ['Memory', `${machine.memoryGiB.toFixed(1)} GiB`],
        ['OS', machine.os],
        ['Node', machine.node],
        ['Load average (1, 5, 15 min) at the end', machine.loadAverage.map((n) => n.toFixed(2)).join(', ')],
      ],
    ),
    '',
    ...(missing.length > 0 ? [`Not in these figures: ${missing.join(', ')}.`, ''] : []),
    '## Targets',
    '',
    table(['What', 'Measured', 'Target', ''], targets),
    '',
    ...initialJsSection(record),
    ...firstRowSection(record),
    ...requestsSection(record),
    ...rowsSection(record),
    ...walkSection(record),
    ...loadSection(record),
    ...activitySection(record),
    ...archiveSection(record),
    ...scaleSection(record),
    ...(kept ? [kept.trimEnd()] : []),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
