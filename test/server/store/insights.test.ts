import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Figures } from '../../../src/api/insights-schemas';
import type { Operation } from '../../../src/api/schemas';
import { NO_FILTERS, type HistoryFilters } from '../../../src/model/filters';
import {
  bucketRanges,
  failedFilters,
  FINISHED_STATUSES,
  insightRange,
  QUEUE_STATUSES,
  rangeFilters,
  runsFilters,
  UNCOUNTED_STATUSES,
} from '../../../src/model/insight-figures';
import { readOverview, readProjectInsights } from '../../../server/insights/insight-reads';
import type { Db } from '../../../server/store';
import type { SqlValue } from '../../../server/store/db';
import { inLane } from '../../../server/store/lanes';
import { loadMigrations, migrate } from '../../../server/store/migrations';
import { operationsPage, upsertOperations, type ListedOperation } from '../../../server/store/operations';
import { DRIVERS, openTestStore } from './store-drivers';

// Each insights figure is a history filter counted by the store (src/model/insight-figures.ts):
// here every figure of every action, in both windows, and every bar of the chart is checked against the history's
// own filter over the same rows (operationsPage, what /archive/projects/:id/operations answers), on both drivers.

const NOW = Date.parse('2026-11-22T12:00:00.500Z');
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const DAY = 86_400_000;
const PROJECT = 'p-insights';
const ACTIONS = ['apply_config', 'start_compute', 'create_branch', 'suspend_compute'];
const STATUSES = ['finished', 'finished', 'failed', 'finished', 'error', 'cancelled', 'finished', 'skipped', 'running', 'scheduling', 'paused', 'finished'];
const range = insightRange('7d', NOW);
const iso = (ms: number) => new Date(ms).toISOString();

function operation(id: string, fields: Partial<Operation> & { created_at: string }): Operation {
  return {
    id,
    project_id: PROJECT,
    action: 'apply_config',
    status: 'finished',
    failures_count: 0,
    updated_at: fields.created_at,
    total_duration_ms: 1_000,
    ...fields,
  };
}

/** A spread of operations over both windows and a day either side, every status, with durations and retries. */
function history(project: string, count: number, seed: number): ListedOperation[] {
  const listed: ListedOperation[] = [];
  for (let i = 0; i < count; i++) {
    const at = NOW - 16 * DAY + Math.floor((i * (16 * DAY + 2 * MINUTE)) / count) + ((i * 7_919 + seed * 104_729) % 3_600_000);
    const status = STATUSES[(i + seed) % STATUSES.length] ?? 'finished';
    const op = operation(`${project}-op-${i}`, {
      project_id: project,
      action: ACTIONS[(i * 3 + seed) % ACTIONS.length] ?? 'apply_config',
      status,
      created_at: iso(at),
      total_duration_ms: 500 + ((i * 37) % 41) * 250,
      failures_count: i % 5 === 0 ? 1 + (i % 3) : 0,
    });
    listed.push({ operation: op, body: op });
  }
  return listed;
}

/** The edges of the windows, to the millisecond: the filters read `from` and `to` to the second. */
const EDGES: ListedOperation[] = [
  ['edge-window-start', Date.parse(range.current.from)],
  ['edge-before-window', Date.parse(range.current.from) - 1],
  ['edge-window-end', Date.parse(range.current.to) + 999],
  ['edge-after-window', Date.parse(range.current.to) + SECOND],
  ['edge-previous-start', Date.parse(range.previous.from)],
  ['edge-before-previous', Date.parse(range.previous.from) - 1],
].map(([id, at]) => {
  const op = operation(String(id), { action: 'create_branch', status: 'failed', failures_count: 1, created_at: iso(Number(at)), total_duration_ms: 90_000 });
  return { operation: op, body: op };
});

/** A finished operation whose kept object has no number for its duration: counted as a run, not as a duration. */
const ODD = operation('odd-duration', { action: 'apply_config', created_at: iso(NOW - DAY), total_duration_ms: 1 });

/** The rows the history lists for `filters` (every page of them). */
async function listed(db: Db, project: string, filters: HistoryFilters): Promise<Operation[]> {
  const rows = await operationsPage(db, project, filters, undefined, 1_000);
  expect(rows.length).toBeLessThan(1_000);
  return rows.map((row) => row.body as Operation);
}

/** The nearest-rank percentile (the smallest value with at least `fraction` of them at or below it). */
function percentile(values: readonly number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? null;
}

/** The figures as the history's filters list them: the oracle each figure of the store is checked against. */
async function expectedFigures(
  db: Db,
  project: string,
  window: { from: string; to: string },
  action?: string,
): Promise<Omit<Figures, 'queueP50Ms' | 'queued'>> {
  const runs = await listed(db, project, runsFilters(window, action));
  const failed = await listed(db, project, failedFilters(window, action));
  const uncounted = await listed(db, project, { ...runsFilters(window, action), status: UNCOUNTED_STATUSES });
  const finished = await listed(db, project, { ...runsFilters(window, action), status: FINISHED_STATUSES });
  const durations = finished.map((op) => op.total_duration_ms as unknown).filter((ms): ms is number => typeof ms === 'number');
  return {
    runs: runs.length,
    failed: failed.length,
    uncounted: uncounted.length,
    retried: runs.filter((op) => op.failures_count > 0).length,
    p50Ms: percentile(durations, 0.5),
    p95Ms: percentile(durations, 0.95),
    timed: durations.length,
  };
}

/** `db` as the embedded store cuts a heavy read: into statements of about `rows` operations, each counted. */
function cutDb(db: Db, rows: number | undefined) {
  const cut = { statements: 0, db };
  cut.db = {
    ...db,
    heavyStatementRows: rows,
    query: <R>(text: string, params?: readonly SqlValue[]) => {
      cut.statements += 1;
      return db.query<R>(text, params);
    },
  };
  return cut;
}

const withoutQueue = ({ queueP50Ms: _queue, queued: _queued, ...rest }: Figures) => rest;

describe.each(DRIVERS)('insights in the store on %s', (driver) => {
  let db: Db;

  beforeAll(async () => {
    ({ db } = await openTestStore(driver));
    const seen = new Date(NOW);
    await upsertOperations(db, PROJECT, [...history(PROJECT, 240, 1), ...EDGES, { operation: ODD, body: { ...ODD, total_duration_ms: 'n/a' } }], seen, true);
    await upsertOperations(db, 'p-other', history('p-other', 90, 2), seen, true);
    await upsertOperations(db, 'p-unread', history('p-unread', 30, 3), seen, true);
    // The queue: what the collector saw of four start_compute operations of yesterday.
    const queued = (id: string, statuses: readonly [string, number][]) =>
      statuses.reduce<Promise<unknown>>(
        (before, [status, seenAfter]) =>
          before.then(() => {
            const op = operation(id, { action: 'start_compute', status, created_at: iso(NOW - DAY) });
            return upsertOperations(db, PROJECT, [{ operation: op, body: op }], new Date(NOW - DAY + seenAfter), false);
          }),
        Promise.resolve(),
      );
    await queued('queued-3s', [
      ['scheduling', 1_000],
      ['running', 4_000],
      ['finished', 9_000],
    ]);
    await queued('queued-7s', [
      ['scheduling', 1_000],
      ['running', 8_000],
      ['finished', 12_000],
    ]);
    await queued('queued-40s', [
      ['scheduling', 2_000],
      ['running', 42_000],
      ['failed', 50_000],
    ]);
    // First seen running: the queue was never seen. Seen scheduling, then cancelled: it never ran.
    await queued('never-seen-waiting', [
      ['running', 1_000],
      ['finished', 5_000],
    ]);
    await queued('never-ran', [
      ['scheduling', 1_000],
      ['cancelled', 5_000],
    ]);
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('counts each figure of each action, in the window and the one before, as the history filtered the same way lists them', async () => {
    const insights = await readProjectInsights(db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true);
    expect(insights.range).toEqual(range);
    expect(insights.actions.map((row) => row.key).sort()).toEqual([...ACTIONS].sort());
    for (const row of insights.actions) {
      expect(withoutQueue(row.current), `${row.key}, this window`).toEqual(await expectedFigures(db, PROJECT, range.current, row.key));
      expect(withoutQueue(row.previous), `${row.key}, the window before`).toEqual(await expectedFigures(db, PROJECT, range.previous, row.key));
    }
    // The cases are worth comparing: every figure is something somewhere.
    const all = insights.actions.flatMap((row) => [row.current, row.previous]);
    for (const figure of ['runs', 'failed', 'uncounted', 'retried', 'p50Ms', 'p95Ms'] as const)
      expect(
        all.some((f) => (f[figure] ?? 0) > 0),
        figure,
      ).toBe(true);
    // The edges: the window's first and last second in, the millisecond either side out.
    const branch = insights.actions.find((row) => row.key === 'create_branch');
    const edgeIds = (await listed(db, PROJECT, failedFilters(range.current, 'create_branch'))).map((op) => op.id).filter((id) => id.startsWith('edge-'));
    expect(edgeIds.sort()).toEqual(['edge-window-end', 'edge-window-start']);
    expect(branch?.current.failed).toBe((await listed(db, PROJECT, failedFilters(range.current, 'create_branch'))).length);
  });

  it('leaves an operation whose duration is no number out of the percentiles only', async () => {
    const apply = (await readProjectInsights(db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true)).actions.find(
      (row) => row.key === 'apply_config',
    );
    const finished = await listed(db, PROJECT, { ...runsFilters(range.current, 'apply_config'), status: FINISHED_STATUSES });
    expect(finished.map((op) => op.id)).toContain('odd-duration');
    expect(apply?.current.runs).toBe((await listed(db, PROJECT, runsFilters(range.current, 'apply_config'))).length);
    expect(apply?.current.p50Ms).toBe(
      percentile(
        finished.filter((op) => op.id !== 'odd-duration').map((op) => op.total_duration_ms),
        0.5,
      ),
    );
  });

  it('takes the queue from the first sighting of scheduling to the first of running, over those seen both ways', async () => {
    const compute = (await readProjectInsights(db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true)).actions.find(
      (row) => row.key === 'start_compute',
    );
    expect(compute?.current.queued).toBe(3);
    expect(compute?.current.queueP50Ms).toBe(7_000);
    // Nothing of the kind was seen in the window before: no figure rather than a zero.
    expect(compute?.previous.queueP50Ms).toBeNull();
    expect(compute?.previous.queued).toBe(0);
  });

  it('counts each bar of the chart as the history lists that day, status by status', async () => {
    const insights = await readProjectInsights(db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true);
    expect(insights.bucket).toBe('day');
    // Seven days from a second past noon: the first and the last are parts of days.
    expect(insights.buckets.map(({ from, to }) => ({ from, to }))).toEqual(bucketRanges(range.current, 'day'));
    expect(insights.buckets).toHaveLength(8);
    let total = 0;
    for (const bucket of insights.buckets) {
      const day = await listed(db, PROJECT, rangeFilters(bucket));
      const byStatus: Record<string, number> = {};
      for (const op of day) byStatus[op.status] = (byStatus[op.status] ?? 0) + 1;
      expect(bucket.statuses, bucket.from).toEqual(byStatus);
      total += day.length;
    }
    expect(total).toBe((await listed(db, PROJECT, rangeFilters(range.current))).length);
    const hours = await readProjectInsights(db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, '24h', NOW, true);
    expect(hours.bucket).toBe('hour');
    expect(hours.buckets).toHaveLength(25);
    const lastDay = insightRange('24h', NOW).current;
    expect(hours.buckets.reduce((sum, bucket) => sum + Object.values(bucket.statuses).reduce((a, b) => a + b, 0), 0)).toBe(
      (await listed(db, PROJECT, rangeFilters(lastDay))).length,
    );
  });

  it('gives one row per project it is handed, those without operations too, and nothing of any other', async () => {
    const overview = await readOverview(
      db,
      [
        { id: PROJECT, name: 'insights' },
        { id: 'p-other', name: 'other' },
        { id: 'p-quiet', name: 'quiet' },
      ],
      '7d',
      NOW,
      false,
    );
    expect(overview.projects.map((row) => row.key)).toEqual([PROJECT, 'p-other', 'p-quiet']);
    for (const row of overview.projects) {
      expect(withoutQueue(row.current), row.key).toEqual(await expectedFigures(db, row.key, range.current));
      expect(withoutQueue(row.previous), row.key).toEqual(await expectedFigures(db, row.key, range.previous));
    }
    expect(overview.projects.find((row) => row.key === 'p-quiet')?.current.runs).toBe(0);
  });

  const cutInto = (rows: number | undefined) => cutDb(db, rows);
  const projects = [
    { id: PROJECT, name: 'insights' },
    { id: 'p-other', name: 'other' },
  ];

  it('gives the same figures however its read is cut into statements, wherever the cuts fall', async () => {
    for (const window of ['24h', '7d', '90d'] as const) {
      const whole = cutInto(undefined).db;
      for (const rows of [3, 40]) {
        const cut = cutInto(rows);
        const insights = await readProjectInsights(cut.db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, window, NOW, true);
        expect(insights, `${window}, ${rows} a statement`).toEqual(
          await readProjectInsights(whole, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, window, NOW, true),
        );
        expect(await readOverview(cut.db, projects, window, NOW, true), `${window}, ${rows} a statement`).toEqual(
          await readOverview(whole, projects, window, NOW, true),
        );
      }
    }
    // Some 200 operations in the two 7-day windows, at about 7 a statement: many statements, none of them all.
    const cut = cutInto(7);
    const insights = await readProjectInsights(cut.db, { id: PROJECT, name: 'insights' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true);
    expect(insights.actions.reduce((sum, row) => sum + row.current.runs + row.previous.runs, 0)).toBeGreaterThan(150);
    expect(cut.statements).toBeGreaterThan(15);
  });

  it('counts nothing of a project no kept key covers', async () => {
    const insights = await readProjectInsights(db, { id: 'p-unread', name: 'unread' }, undefined, '7d', NOW, false);
    expect(insights.archive).toBeNull();
    expect(insights.actions).toEqual([]);
    expect(insights.buckets.every((bucket) => Object.keys(bucket.statuses).length === 0)).toBe(true);
  });
});

describe.each(DRIVERS)('the queue kept on each operation on %s', (driver) => {
  let db: Db;
  const QUEUE_PROJECT = 'p-queue';
  /** What the collector saw of each operation, page by page: its status and when, after yesterday's noon. */
  const SIGHTINGS: Record<string, readonly [string, number][]> = {
    'waited, ran, finished': [
      ['scheduling', 1_000],
      ['running', 6_000],
      ['finished', 9_000],
    ],
    'waited twice': [
      ['scheduling', 1_000],
      ['scheduling', 2_000],
      ['running', 4_000],
      ['scheduling', 5_000],
      ['running', 8_000],
      ['finished', 9_000],
    ],
    'seen running first': [
      ['running', 1_000],
      ['scheduling', 3_000],
      ['running', 4_000],
      ['finished', 6_000],
    ],
    'never seen waiting': [
      ['running', 1_000],
      ['finished', 5_000],
    ],
    'first seen ended': [['finished', 1_000]],
  };

  beforeAll(async () => {
    ({ db } = await openTestStore(driver));
    for (const [id, sightings] of Object.entries(SIGHTINGS)) {
      for (const [status, seenAfter] of sightings) {
        const op = operation(id, { project_id: QUEUE_PROJECT, action: 'start_compute', status, created_at: iso(NOW - DAY) });
        await upsertOperations(db, QUEUE_PROJECT, [{ operation: op, body: op }], new Date(NOW - DAY + seenAfter), false);
      }
    }
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  /** Each operation's two sightings as kept on it, and as its transitions say them (the first of each status), in ms. */
  async function sightings(): Promise<Record<string, { kept: [number | null, number | null]; transitions: [number | null, number | null] }>> {
    const { rows } = await db.query<{ id: string; waiting: number | null; running: number | null; first_waiting: number | null; first_running: number | null }>(
      `SELECT o.id, (extract(epoch FROM o.waiting_seen_at) * 1000)::float8 AS waiting, (extract(epoch FROM o.running_seen_at) * 1000)::float8 AS running,
         (SELECT (extract(epoch FROM min(t.seen_at)) * 1000)::float8 FROM operation_transitions t WHERE t.project_id = o.project_id AND t.operation_id = o.id AND t.status = $2) AS first_waiting,
         (SELECT (extract(epoch FROM min(t.seen_at)) * 1000)::float8 FROM operation_transitions t WHERE t.project_id = o.project_id AND t.operation_id = o.id AND t.status = $3) AS first_running
       FROM operations o WHERE o.project_id = $1`,
      [QUEUE_PROJECT, QUEUE_STATUSES.waiting, QUEUE_STATUSES.running],
    );
    return Object.fromEntries(rows.map((row) => [row.id, { kept: [row.waiting, row.running], transitions: [row.first_waiting, row.first_running] }]));
  }

  it('keeps the first sighting of waiting and of running on the operation, as its transitions say them', async () => {
    const since = NOW - DAY;
    const expected: Record<string, [number | null, number | null]> = {
      'waited, ran, finished': [since + 1_000, since + 6_000],
      'waited twice': [since + 1_000, since + 4_000],
      'seen running first': [since + 3_000, since + 1_000],
      'never seen waiting': [null, since + 1_000],
      'first seen ended': [null, null],
    };
    const kept = await sightings();
    expect(Object.fromEntries(Object.entries(kept).map(([id, { kept: pair }]) => [id, pair]))).toEqual(expected);
    for (const [id, { kept: pair, transitions }] of Object.entries(kept)) expect(pair, id).toEqual(transitions);
  });

  it('counts the queue of those seen waiting and then running only', async () => {
    const insights = await readProjectInsights(db, { id: QUEUE_PROJECT, name: 'queue' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true);
    const compute = insights.actions.find((row) => row.key === 'start_compute');
    expect(compute?.current.queued).toBe(2);
    // 5 s and 3 s: the lower median (nearest rank) of two.
    expect(compute?.current.queueP50Ms).toBe(3_000);
  });

  it('takes a queue to the millisecond, whatever its value looks like in the statement (4.001 s)', async () => {
    const project = 'p-queue-ms';
    for (const [id, queueMs] of [
      ['a second and a half', 1_500],
      ['four seconds and a millisecond', 4_001],
      ['nine seconds', 9_000],
    ] as const) {
      for (const [status, seenAfter] of [
        ['scheduling', 1_000],
        ['running', 1_000 + queueMs],
      ] as const) {
        const op = operation(id, { project_id: project, action: 'start_compute', status, created_at: iso(NOW - DAY) });
        await upsertOperations(db, project, [{ operation: op, body: op }], new Date(NOW - DAY + seenAfter), false);
      }
    }
    const insights = await readProjectInsights(db, { id: project, name: 'queue to the millisecond' }, { backfilled: true, lastReadAt: null }, '7d', NOW, true);
    const compute = insights.actions.find((row) => row.key === 'start_compute');
    expect(compute?.current.queued).toBe(3);
    expect(compute?.current.queueP50Ms).toBeCloseTo(4_001, 6);
    // Across projects, however the read is cut: a statement per group of projects taking their percentiles itself
    // (a server's, heavyStatementRows unset), or slices of time whose values are gathered in Node (2 a statement).
    for (const [how, read] of [
      ['as the store reads', db],
      ['by groups of projects', cutDb(db, undefined).db],
      ['by slices of time', cutDb(db, 2).db],
    ] as const) {
      const overview = await readOverview(
        read,
        [
          { id: project, name: 'queue to the millisecond' },
          { id: QUEUE_PROJECT, name: 'queue' },
        ],
        '7d',
        NOW,
        true,
      );
      const byKey = new Map(overview.projects.map((row) => [row.key, row.current]));
      expect(byKey.get(project)?.queued, how).toBe(3);
      expect(byKey.get(project)?.queueP50Ms, how).toBeCloseTo(4_001, 6);
      expect(byKey.get(QUEUE_PROJECT)?.queued, how).toBe(2);
      expect(byKey.get(QUEUE_PROJECT)?.queueP50Ms, how).toBe(3_000);
    }
  });

  it('fills the sightings of operations kept before its migration from their transitions', async () => {
    const before = await sightings();
    // The store as it was before migration 008: no columns, 006's indexes, not recorded.
    await db.query('ALTER TABLE operations DROP COLUMN waiting_seen_at, DROP COLUMN running_seen_at');
    await db.query('CREATE INDEX operations_window ON operations (project_id, created_at) INCLUDE (action, status, total_duration_ms, failures_count, id)');
    await db.query('CREATE INDEX operation_transitions_queue ON operation_transitions (project_id, status, seen_at) INCLUDE (operation_id)');
    await db.query('DELETE FROM schema_migrations WHERE version = 8');

    expect(await migrate(db, await loadMigrations())).toEqual([8]);
    expect(await sightings()).toEqual(before);
  });
});

describe('a heavy read on the embedded store', () => {
  let db: Db;

  beforeAll(async () => {
    ({ db } = await openTestStore('pglite'));
    await upsertOperations(db, PROJECT, history(PROJECT, 240, 1), new Date(NOW), true);
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('lets a request’s read go between its statements: that read waits for one of them at most', async () => {
    // The worker runs one statement at a time, a request's reads before heavy ones (docs/architecture.md).
    const cut = cutDb(db, 7);
    let answeredCount = 0;
    let answered: () => void = () => undefined;
    const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
    const heavyDb: Db = {
      ...cut.db,
      query: async <R>(text: string, params?: readonly SqlValue[]) => {
        const rows = await cut.db.query<R>(text, params);
        answeredCount += 1;
        answered();
        return rows;
      },
    };
    const heavy = inLane('heavy', () => readOverview(heavyDb, [{ id: PROJECT, name: 'insights' }], '7d', NOW, true));
    await firstAnswered;
    const sentAt = answeredCount;
    const page = await operationsPage(db, PROJECT, NO_FILTERS, undefined, 50);
    const answeredAt = answeredCount;
    expect(page).toHaveLength(50);
    expect(answeredAt - sentAt).toBeLessThanOrEqual(1);
    const overview = await heavy;
    expect(overview.projects[0]?.current.runs).toBeGreaterThan(0);
    // The heavy read went on after it: many statements still to come when the request's read was answered.
    expect(answeredCount - answeredAt).toBeGreaterThan(10);
  });
});
