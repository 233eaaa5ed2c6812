import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsightWindow } from '../../../src/api/insights-schemas';
import type { Operation } from '../../../src/api/schemas';
import { NO_FILTERS } from '../../../src/model/filters';
import {
  BUCKET_MS,
  FAILED_STATUSES,
  FINISHED_STATUSES,
  insightRange,
  rangeFilters,
  statusFilters,
  UNCOUNTED_STATUSES,
} from '../../../src/model/insight-figures';
import { openStore, type Db } from '../../../server/store';
import { rebuildDayFigures } from '../../../server/store/day-figures';
import { exactFigureRows } from '../../../server/store/insight-exact';
import { bucketRows, figureRows, type FigureConditions, type FigureRow } from '../../../server/store/insights';
import { matchCount, upsertOperations, type ListedOperation } from '../../../server/store/operations';
import { pgliteDataDir } from '../../support/pglite-template';

// The per-day figures (docs/insights.md, "Per-day figures"): a backfill, then a day of the collector's reads
// on the embedded store (every status change, late ones, a failed operation retried to the end, the same objects
// read again and again, the store closed and opened again midway): what it kept equals what the rebuild command makes
// from the rows, and the insights read from them give the rows' counts exactly and their percentiles within 1 %.

const NOW = Date.parse('2026-11-22T15:20:00.000Z');
const SECOND = 1_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PROJECTS = ['p-busy', 'p-calm'];
const ACTIONS = ['start_compute', 'apply_config', 'create_branch', 'suspend_compute'];
const ENDED = ['finished', 'finished', 'finished', 'finished', 'finished', 'finished', 'failed', 'error', 'cancelled', 'skipped'];

/** A fixed pseudo-random sequence: the same operations on every run. */
function randoms(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

interface Simulated {
  id: string;
  project: string;
  action: string;
  createdAt: number;
  queueMs: number;
  durationMs: number;
  ended: string;
  failures: number;
  /** A failed run the platform retried: finished this long after it first failed, with one failure more. */
  retriedAfterMs?: number;
}

function simulate(count: number, from: number, until: number, seed: number, prefix: string): Simulated[] {
  const next = randoms(seed);
  return Array.from({ length: count }, (_, i) => {
    const ended = ENDED[Math.floor(next() * ENDED.length)] ?? 'finished';
    return {
      id: `${prefix}-${i}`,
      project: PROJECTS[next() < 0.7 ? 0 : 1] ?? 'p-busy',
      action: ACTIONS[Math.floor(next() * ACTIONS.length)] ?? 'start_compute',
      createdAt: Math.floor((from + next() * (until - from)) / SECOND) * SECOND,
      queueMs: Math.floor(next() * 4 * HOUR),
      durationMs: Math.round(120 * Math.exp(next() * 6)),
      ended,
      failures: next() < 0.1 ? 1 : 0,
      ...(ended === 'failed' && next() < 0.5 ? { retriedAfterMs: Math.floor(next() * 6 * HOUR) } : {}),
    };
  });
}

/** The object the API lists for `op` at `at` (undefined before it is created). */
function seenAt(op: Simulated, at: number): Operation | undefined {
  if (at < op.createdAt) return undefined;
  const endsAt = op.createdAt + op.queueMs + op.durationMs;
  const common = { id: op.id, project_id: op.project, action: op.action, created_at: new Date(op.createdAt).toISOString() };
  if (at < op.createdAt + op.queueMs) return { ...common, status: 'scheduling', failures_count: 0, updated_at: common.created_at, total_duration_ms: 0 };
  if (at < endsAt)
    return { ...common, status: 'running', failures_count: 0, updated_at: new Date(at).toISOString(), total_duration_ms: at - op.createdAt - op.queueMs };
  const ended = { ...common, status: op.ended, failures_count: op.failures, updated_at: new Date(endsAt).toISOString(), total_duration_ms: op.durationMs };
  if (op.retriedAfterMs === undefined || at < endsAt + op.retriedAfterMs) return ended;
  return { ...ended, status: 'finished', failures_count: op.failures + 1, total_duration_ms: op.durationMs + op.retriedAfterMs };
}

/** One read of the collector at `at`: every operation listed then, a project at a time, in pages of 100. */
async function collect(db: Db, ops: readonly Simulated[], at: number, backfill: boolean): Promise<void> {
  for (const project of PROJECTS) {
    const listed: ListedOperation[] = ops
      .filter((op) => op.project === project)
      .map((op) => seenAt(op, at))
      .filter((op): op is Operation => op !== undefined)
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .map((operation) => ({ operation, body: operation }));
    for (let i = 0; i < listed.length; i += 100) await upsertOperations(db, project, listed.slice(i, i + 100), new Date(at), backfill, i > 0);
  }
}

/** Every figures table's sums, those that came to nothing left out (a rebuild makes none). */
async function keptFigures(db: Db): Promise<unknown[]> {
  const { rows: figures } = await db.query(
    'SELECT project_id, day::text, action, status, duration_bucket, runs, retried FROM operation_day_figures WHERE runs <> 0 OR retried <> 0 ORDER BY 1, 2, 3, 4, 5',
  );
  const { rows: queues } = await db.query(
    'SELECT project_id, day::text, action, queue_bucket, queued FROM operation_day_queues WHERE queued <> 0 ORDER BY 1, 2, 3, 4',
  );
  const { rows: projectFigures } = await db.query(
    'SELECT project_id, day::text, status, duration_bucket, runs, retried FROM operation_day_project_figures WHERE runs <> 0 OR retried <> 0 ORDER BY 1, 2, 3, 4',
  );
  const { rows: projectQueues } = await db.query(
    'SELECT project_id, day::text, queue_bucket, queued FROM operation_day_project_queues WHERE queued <> 0 ORDER BY 1, 2, 3',
  );
  const { rows: monthFigures } = await db.query(
    'SELECT project_id, month::text, status, duration_bucket, runs, retried FROM operation_month_project_figures WHERE runs <> 0 OR retried <> 0 ORDER BY 1, 2, 3, 4',
  );
  const { rows: monthQueues } = await db.query(
    'SELECT project_id, month::text, queue_bucket, queued FROM operation_month_project_queues WHERE queued <> 0 ORDER BY 1, 2, 3',
  );
  const { rows: counts } = await db.query('SELECT project_id, action, status, operations FROM operation_counts WHERE operations <> 0 ORDER BY 1, 2, 3');
  const { rows: projectCounts } = await db.query('SELECT project_id, operations FROM operation_project_counts WHERE operations <> 0 ORDER BY 1');
  expect(projectFigures.length).toBeGreaterThan(0);
  // The backfill's 200 days span seven months: a month sums several days.
  expect(monthFigures.length).toBeGreaterThan(0);
  expect(monthFigures.length).toBeLessThan(projectFigures.length);
  expect(projectCounts.length).toBeGreaterThan(0);
  return [...figures, ...queues, ...projectFigures, ...projectQueues, ...monthFigures, ...monthQueues, ...counts, ...projectCounts];
}

function conditionsOf(window: InsightWindow): FigureConditions {
  const range = insightRange(window, NOW);
  return {
    current: rangeFilters(range.current),
    previous: rangeFilters(range.previous),
    failed: statusFilters(FAILED_STATUSES),
    uncounted: statusFilters(UNCOUNTED_STATUSES),
    finished: statusFilters(FINISHED_STATUSES),
  };
}

const counts = ({ p50_ms: _p50, p95_ms: _p95, queue_p50_ms: _queue, ...rest }: FigureRow) => rest;

function expectWithinOnePercent(read: number | null, exact: number | null, what: string) {
  if (exact === null) {
    expect(read, what).toBeNull();
    return;
  }
  expect(read, what).not.toBeNull();
  expect(Math.abs((read ?? NaN) - exact), `${what}: ${read} against ${exact}`).toBeLessThanOrEqual(exact * 0.01);
}

describe('per-day figures kept by the collector', () => {
  let dataDir: string;
  let db: Db;
  const backfilled = simulate(500, NOW - 200 * DAY, NOW - DAY, 7, 'old');
  const live = simulate(400, NOW - DAY, NOW, 11, 'new');

  beforeAll(async () => {
    dataDir = await pgliteDataDir();
    db = await openStore({ dataDir });
    // The backfill reads every operation listed a day ago, ended or still going.
    await collect(db, backfilled, NOW - DAY, true);
    // A day of reads every two hours, the store closed and opened again halfway (a restart).
    for (let hour = 2; hour <= 24; hour += 2) {
      if (hour === 12) {
        await db.close();
        db = await openStore({ dataDir });
      }
      await collect(db, [...backfilled, ...live], NOW - DAY + hour * HOUR, false);
    }
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('equal what the rebuild makes from the rows', async () => {
    const kept = await keptFigures(db);
    const { rows } = await db.query<{ runs: number }>('SELECT sum(runs)::int AS runs FROM operation_day_figures');
    expect(rows[0]?.runs).toBe(backfilled.length + live.length);
    const made = await rebuildDayFigures(db);
    expect(made.figures).toBeGreaterThan(0);
    expect(await keptFigures(db)).toEqual(kept);
  });

  it.each(['24h', '7d', '90d'] as const)('over %s give the rows’ counts exactly and their percentiles within one in a hundred', async (window) => {
    const where = conditionsOf(window);
    for (const groupBy of ['project', 'action'] as const) {
      const exact = await exactFigureRows(db, PROJECTS, groupBy, where);
      const read = await figureRows(db, PROJECTS, groupBy, where, { exactUpTo: -1, figuresFrom: 0 });
      expect(read.map(counts)).toEqual(exact.map(counts));
      // As a server cuts it (fewer statements, side by side): the same figures.
      expect(await figureRows({ ...db, heavyStatementRows: undefined }, PROJECTS, groupBy, where, { exactUpTo: -1, figuresFrom: 0 })).toEqual(read);
      expect(exact.reduce((sum, row) => sum + row.timed, 0)).toBeGreaterThan(0);
      read.forEach((row, i) => {
        const of = exact[i];
        const what = `${groupBy} ${row.key}, ${row.period}`;
        expectWithinOnePercent(row.p50_ms, of?.p50_ms ?? null, `${what} p50`);
        expectWithinOnePercent(row.p95_ms, of?.p95_ms ?? null, `${what} p95`);
        expectWithinOnePercent(row.queue_p50_ms, of?.queue_p50_ms ?? null, `${what} queue p50`);
      });
    }
    // The busy project from its figures, the calm one (fewer operations than figuresFrom) from its rows, exact.
    const mixed = await figureRows(db, PROJECTS, 'project', where, { exactUpTo: -1, figuresFrom: 400 });
    const exact = await exactFigureRows(db, PROJECTS, 'project', where);
    expect(mixed.map(counts).sort((a, b) => a.key.localeCompare(b.key) || a.period.localeCompare(b.period))).toEqual(
      exact.map(counts).sort((a, b) => a.key.localeCompare(b.key) || a.period.localeCompare(b.period)),
    );
    expect(mixed.filter((row) => row.key === 'p-calm')).toEqual(exact.filter((row) => row.key === 'p-calm'));
    // Few runs: the percentiles exact.
    expect(await figureRows(db, PROJECTS, 'project', where, { exactUpTo: Infinity, figuresFrom: 0 })).toEqual(
      await exactFigureRows(db, PROJECTS, 'project', where),
    );
  });

  it('count a project’s history filtered by status and action as its rows', async () => {
    const { rows } = await db.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM operations WHERE project_id = 'p-busy' AND status = ANY('{failed,error}') AND action = 'start_compute'",
    );
    expect(rows[0]?.count).toBeGreaterThan(0);
    expect(await matchCount(db, 'p-busy', { ...NO_FILTERS, status: FAILED_STATUSES, action: ['start_compute'] })).toBe(rows[0]?.count);
    expect(await matchCount(db, 'p-busy', NO_FILTERS)).toBe(
      backfilled.filter((op) => op.project === 'p-busy').length + live.filter((op) => op.project === 'p-busy').length,
    );
  });

  it("give the chart's days as the rows count them", async () => {
    const range = rangeFilters(insightRange('30d', NOW).current);
    const { rows: exact } = await db.query<{ bucket: number; status: string; operations: number }>(
      `SELECT floor(extract(epoch FROM created_at) / 86400)::int AS bucket, status, count(*)::int AS operations FROM operations
       WHERE project_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz + interval '1 second' GROUP BY 1, 2 ORDER BY 1, 2`,
      ['p-busy', range.from ?? '', range.to ?? ''],
    );
    expect(await bucketRows(db, 'p-busy', { ...NO_FILTERS, ...range }, BUCKET_MS.day)).toEqual(exact);
  });
});
