import { describe, expect, it } from 'vitest';
import type { LoadFigures } from '../../bench/load';
import { keptSection, resultsPage, targetLines, type BenchRecord, type MachineFacts } from '../../bench/results-page';

const machine: MachineFacts = { cpu: 'Test CPU', cores: 2, memoryGiB: 8, os: 'Linux 6.1', node: 'v20.20.2', loadAverage: [0.5, 0.25, 0.125] };

const figures = (requestsPerSecond: number, p99Ms: number, maxMs = p99Ms * 2): LoadFigures => ({
  requestsPerSecond,
  p50Ms: p99Ms / 3,
  p99Ms,
  maxMs,
  requests: requestsPerSecond * 10,
  non2xx: 0,
  errors: 0,
  counted: 0,
});

/** A whole run's record, in the shape bench/run.ts writes to bench/results/latest.json. */
const whole: BenchRecord = {
  at: '2026-11-27T01:38:12.345Z',
  commit: '062dfb1',
  loadAverage1m: 0.9,
  project: { id: 'proj-big', name: 'acme-analytics-prod', operations: 2406, firstPageRows: 100 },
  initialJs: { gzipKiB: 121.3, targetKiB: 120, files: [] },
  firstRow: {
    appMedianMs: 276,
    fileMedianMs: 200,
    staticMedianMs: 134,
    serverRatio: 276 / 200,
    targetServerRatio: 1.25,
    pageRatio: 200 / 134,
    targetPageRatio: 2,
    runs: 7,
    warmups: 2,
    appSamplesMs: [276],
    appServerRendered: 7,
    fileSamplesMs: [200],
    staticSamplesMs: [134],
    staticHeadersMedianMs: 140,
    staticHeadersSamplesMs: [140],
    bytes: { file: { raw: 140 * 1024, gzip: 20 * 1024 }, static: { raw: 40 * 1024, gzip: 5 * 1024 } },
    floorMedianMs: 420,
    floorRatio: 420 / 134,
    floorSamplesMs: [420],
  },
  scripts: [
    { file: '/assets/index-abc.js', how: 'entry', bytes: 40_000, gzipBytes: 22_835 },
    { file: '/assets/react-dom-def.js', how: 'modulepreload', bytes: 200_000, gzipBytes: 99 * 1024 },
  ],
  initialJsOrigins: {
    libraries: [{ name: 'react-dom', gzipBytes: 64 * 1024 }],
    ownGzipBytes: 20 * 1024,
    largestOwn: [{ file: 'src/lib/poll-sharing/poll-sharing.ts', gzipBytes: 1200 }],
    ownModules: 62,
  },
  requests: {
    pollMs: 1000,
    windowIntervals: 6,
    watched: 20,
    scenarios: [
      { tabs: 1, perInterval: 1, busiestInterval: 1, allPerInterval: 1.2, maxPerSecond: 3, hidden: 0, paths: {} },
      { tabs: 3, perInterval: 1.17, busiestInterval: 2, allPerInterval: 1.5, maxPerSecond: 7, hidden: 0, paths: {} },
    ],
  },
  rows: {
    project: { id: 'proj-huge', name: 'acme-event-archive' },
    targetInpMs: 100,
    phases: [
      {
        phase: '"Load more" click, up to 5,000 rows',
        interactions: 49,
        medianMs: 24,
        p98Ms: 90,
        maxMs: 120,
        judged: false,
        missedClicks: 0,
        rowsPaintedMedianMs: 170,
        rowsPaintedMaxMs: 900,
      },
      { phase: 'keys (PageDown/End/Home/Tab) at 20,000 rows', interactions: 12, medianMs: 32, p98Ms: 128, maxMs: 140, judged: true },
    ],
    snapshots: [{ rows: 20_000, jsHeapUsedMiB: 11.8, domNodes: 559, renderedRows: 40 }],
  },
  walk: {
    project: { id: 'proj-huge', name: 'acme-event-archive' },
    failedByApi: 118,
    runs: [{ ms: 3250, matches: 118, listRequests: 21, walkRequests: 20, allRequests: 24, maxPerSecond: 11, rateLimited: 0 }],
    medianMs: 3250,
    targetMs: 10_000,
    targetPerSecond: 40,
  },
  load: {
    seconds: 10,
    workers: 1,
    runs: [
      {
        what: 'proxied /api/v2 read (100 operations)',
        path: '/api/v2/x',
        connections: 50,
        ...figures(2486, 67),
        bare: figures(12_000, 12),
        bareProxy: figures(4508, 30),
        trials: [figures(2385, 71), figures(2812, 58), figures(2486, 67)],
      },
      { what: 'rendered deep link page', path: '/projects/x', connections: 50, ...figures(1866, 90), rendered: 1910, bare: figures(2700, 39) },
      { what: 'rendered deep link page, overload', path: '/projects/x', connections: 200, ...figures(2000, 300, 346), rendered: 500 },
    ],
    health: figures(900, 43, 120),
    arrivals: { count: 100, failed: 0, connectMaxMs: 40, firstByteP50Ms: 300, firstByteP90Ms: 600, firstByteMaxMs: 734 },
    rssMiB: { before: 260, after: 410 },
    heapMiB: { before: 53, after: 62 },
    boundMiB: 32,
  },
  activity: [
    {
      projects: 10,
      busy: 0,
      budgetPerMinute: 60,
      requestsPerMinute: 21,
      mostInAMinute: 23,
      roundMs: 30_000,
      detectionMedianMs: 30_000,
      detectionMaxMs: 32_000,
    },
  ],
  archive: {
    storeOpenMs: 4900,
    backfillMs: 7300,
    backfillRequests: 33,
    operations: 20_000,
    filter: { search: 'status=failed', matches: 118, serverMs: 5.3, totalMs: 7.9 },
    activity: [{ viewers: 1, apiRequestsPerMinute: 13.9 }],
  },
};

describe('the benchmark results page', () => {
  it('says first that the bench writes it and it is not edited by hand', () => {
    const [first] = resultsPage(whole, machine).split('\n');
    expect(first).toContain('Written by `npm run bench`');
    expect(first).toContain('not edited by hand');
  });

  it('keeps its last section, the figures measured outside the bench, from one run to the next', () => {
    const kept = '## Measured outside the bench\n\n### 2026-11-27: CI\n\nFour runs: 561, 526, 521 and 523 s.\n';
    const before = resultsPage(whole, machine, undefined, kept);
    expect(before.endsWith(kept)).toBe(true);
    const after = resultsPage({ ...whole, at: '2026-12-01T09:00:00.000Z' }, machine, undefined, keptSection(before));
    expect(after).toContain('| Date | 2026-12-01 09:00 UTC |');
    expect(after.endsWith(kept)).toBe(true);
    expect(keptSection(resultsPage(whole, machine))).toBe('');
  });

  it('names the date, the commit and the machine', () => {
    const page = resultsPage(whole, machine);
    expect(page).toContain('| Date | 2026-11-27 01:38 UTC |');
    expect(page).toContain('`062dfb1`');
    expect(page).toContain('| CPU | Test CPU, 2 cores |');
    expect(page).toContain('| Memory | 8.0 GiB |');
    expect(page).toContain('| Node | v20.20.2 |');
    expect(page).toContain('0.50, 0.25, 0.13');
  });

  it('holds every part of a whole run as a table, and lists none as missing', () => {
    const page = resultsPage(whole, machine);
    for (const heading of [
      '## Targets',
      '## Initial JS',
      '## First row',
      '## Request budget',
      '## Rows responsiveness',
      '## Filter walk',
      '## The server under load',
      '## Activity across projects',
      '## History archive',
    ]) {
      expect(page).toContain(heading);
    }
    expect(page).not.toContain('Not in these figures');
    expect(page).toContain('| First row: console / its page as a file | 1.38 (276 / 200 ms) | ≤ 1.25 | **missed** |');
    expect(page).toContain('| First row: its page as a file / bare table | 1.49 (200 / 134 ms) | ≤ 2.00 | met |');
    expect(page).toContain('| (b) The same page as a file (140.0 KiB, 20.0 KiB gzip) | 200 |  |');
    expect(page).toContain('| **proxied /api/v2 read (100 operations)** | 50 | 2486 | 22 | 67 | 134 | 0 |  |');
    expect(page).toContain('| **rendered deep link page** | 50 | 1866 | 30 | 90 | 180 | 0 | 1910 |');
  });

  it("judges the page's weight against the bare table with the same headers once a record has both, and an older one as it was", () => {
    if (!whole.firstRow) throw new Error('the whole record has a first row');
    // (b) 200 ms; the plain bare table 90 ms (2.22: the headers' cost in it), with the console's headers 140 (1.43).
    const firstRow = { ...whole.firstRow, staticMedianMs: 90, staticHeadersMedianMs: 140, pageRatio: 200 / 140, plainPageRatio: 200 / 90 };
    const page = resultsPage({ ...whole, firstRow }, machine);
    expect(page).toContain('| First row: its page as a file / bare table | 1.43 (200 / 140 ms) | ≤ 2.00 | met |');
    expect(page).toContain("| (b)/(c'): the page, both with the console's headers | 1.43 | target ≤ 2.00: met |");
    const older = resultsPage(whole, machine);
    expect(older).toContain('| (b)/(c): the page | 1.49 | target ≤ 2.00: met |');
  });

  it('marks each target met or missed as the console report does', () => {
    const lines = targetLines(whole);
    expect(lines.find(([what]) => what === 'Initial JS, gzip')?.[3]).toBe(false);
    expect(lines.find(([what]) => what.startsWith('Walk: every failed'))?.[3]).toBe(true);
    expect(lines.find(([what]) => what.startsWith('Load: /healthz'))?.[3]).toBe(false);
  });

  it("judges the scale's history pages by their p95 and its insights by their median, and a record from before by its median", () => {
    const timing = (what: string, medianMs: number, p95Ms: number, targetMs: number) => ({
      what,
      path: '/archive/…',
      serverMedianMs: medianMs,
      serverP95Ms: p95Ms,
      roundTripMedianMs: medianMs + 5,
      rows: 1000,
      targetMs,
    });
    const scale = (byP95: boolean | undefined) => ({
      operations: 10_000_000,
      projects: 1000,
      busiest: { id: 'scale-project-0001', operations: 3_001_010 },
      runs: 15,
      stores: [
        {
          store: 'postgres' as const,
          operations: 10_000_000,
          transitions: 16_000_000,
          seedMs: Number.NaN,
          sizeBytes: 22 * 1024 ** 3,
          sharedBuffers: '1GB',
          timings: [
            // The median within its target, the p95 not.
            { ...timing("History's first page, the busiest project's", 22, 60, 50), byP95, ...(byP95 ? { runs: 60 } : {}) },
            timing('90-day insights, every project (/insights)', 250, 400, 300),
          ],
        },
      ],
    });
    const verdicts = (record: BenchRecord) => targetLines(record).filter(([what]) => what.startsWith('Scale, '));
    expect(verdicts({ ...whole, scale: scale(true) })).toEqual([
      ["Scale, postgres: History's first page, the busiest project's", '60.0 ms (p95)', '≤ 50 ms', false],
      ['Scale, postgres: 90-day insights, every project (/insights)', '250.0 ms', '≤ 300 ms', true],
    ]);
    expect(verdicts({ ...whole, scale: scale(undefined) })[0]).toEqual([
      "Scale, postgres: History's first page, the busiest project's",
      '22.0 ms',
      '≤ 50 ms',
      true,
    ]);
    const page = resultsPage({ ...whole, scale: scale(true) }, machine);
    expect(page).toContain('| postgres | Shared buffers | 1GB |');
    // Each timing says how many samples its p95 was taken of; one of a record from before, the scale's runs.
    expect(page).toContain("| postgres | History's first page, the busiest project's | 22.0 ms (p95 60.0 of 60), 1000 rows | ≤ 50 ms, p95 | **missed** |");
    expect(page).toContain('| postgres | 90-day insights, every project (/insights) | 250.0 ms (p95 400.0 of 15), 1000 rows | ≤ 300 ms |');
  });

  it('says which parts a record lacks, shows a dash for a figure it does not have, and carries its provenance', () => {
    if (!whole.firstRow) throw new Error('the whole record has a first row');
    const partial: BenchRecord = { ...whole, rows: undefined, walk: undefined, requests: undefined, activity: undefined, archive: undefined };
    const firstRow = { ...whole.firstRow, floorMedianMs: Number.NaN, floorRatio: Number.NaN };
    const page = resultsPage({ ...partial, firstRow }, machine, 'Carried over from the last run.');
    expect(page).toContain('Not in these figures: request budget, rows responsiveness, filter walk, activity, history archive.');
    expect(page).toContain('| Floor React app (bench/floor) | – | – × the bare table |');
    expect(page).toContain('Carried over from the last run.');
    expect(page).not.toContain('NaN');
  });

  it('judges no target whose figure the record lacks', () => {
    if (!whole.load) throw new Error('the whole record has a load part');
    const rss = { before: Number.NaN, after: Number.NaN };
    const page = resultsPage({ ...whole, load: { ...whole.load, heapMiB: rss, rssMiB: rss } }, machine);
    expect(page).toContain('| Load: live heap after full GC, before → after | – → – MiB | +≤ 32 MiB |  |');
    expect(page).not.toContain('NaN');
  });
});
