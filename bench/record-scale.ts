// The whole record at scale (`npm run bench -- --only=scale`): a store seeded with a million operations over three
// years across 50 projects, then the server's answers over it timed, on PGlite (a DATA_DIR of its own) and on a
// throwaway Postgres cluster (test/support/postgres-server.ts). The schema is the one that runs: each store is
// opened by openStore, which applies server/store/migrations. The rows are made by the store itself, one
// INSERT … SELECT FROM generate_series per chunk (operations and their operation_transitions in one statement), in
// the collector's shapes (server/store/operations.ts upsertOperations). What is timed goes through the route
// handlers (server/insights/insights-routes.ts, server/archive/archive-routes.ts) on a loopback server in this
// process, with a project access that answers "readable" at once (the API's read is not what is measured): the
// figure is the server's own time from the route's Server-Timing, the round trip beside it. docs/benchmarks.md.
import { readdir, stat, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ARCHIVE_PAGE_SIZE } from '../src/api/archive';
import { KNOWN_ACTIONS } from '../src/model/filters';
import { archiveRoutes } from '../server/archive/archive-routes';
import { createInsights } from '../server/insights/insights-routes';
import { mountRoutes } from '../server/routes/router';
import { openRoute, type Route } from '../server/session/route-guard';
import type { ProjectAccess } from '../server/proxy/project-access';
import { createSeal } from '../server/seal/seal';
import { createSessions } from '../server/session/sessions';
import { openStore, type Db, type Queryable } from '../server/store';
import { rebuildDayFigures } from '../server/store/day-figures';
import { vacuumRecord } from '../server/store/upkeep';
import { ownPostgres } from '../test/support/postgres-server';
import { judged, samplesOf } from './results-page';

export const SCALE_OPERATIONS = 1_000_000;
/** Projects: 50 up to a few million operations, a thousand from ten million (the largest teams' record). */
const projectsFor = (total: number) => (total >= 10_000_000 ? 1_000 : 50);
const YEARS = 3;
const WARMUPS = 2;
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 15);
/** Operations a statement makes (Postgres' driver gives a query 15 s: server/store/pg-db.ts). */
const CHUNK = 25_000;
export const TARGET_INSIGHTS_MS = 300;
export const TARGET_HISTORY_PAGE_MS = 50;
const KEY = 'bench-scale-key-00000000000000000';

export type ScaleStore = 'pglite' | 'postgres';

export interface Timing {
  what: string;
  path: string;
  /** The server's own time (the route's Server-Timing, summed), median and p95 of `runs`. */
  serverMedianMs: number;
  serverP95Ms: number;
  roundTripMedianMs: number;
  /** Rows in the answer (operations, or rows of figures). */
  rows: number;
  targetMs: number;
  /** Judged by its p95, not its median: the history's pages (issue 43 asks their p95 within 50 ms). */
  byP95?: boolean;
  /** The samples behind the median and p95 (a record from before has the scale's `runs` for every timing). */
  runs?: number;
}

export interface ScaleStoreResult {
  store: ScaleStore;
  operations: number;
  transitions: number;
  seedMs: number;
  /** PGlite: its upkeep's vacuum and analyze after the seed, as the console runs it after a backfill (server/store/upkeep.ts). */
  upkeepMs?: number;
  /** PGlite: the DATA_DIR's files; Postgres: pg_database_size. */
  sizeBytes: number;
  /**
   * Postgres: its shared_buffers, which the insights' reads at ten million want to hold their window
   * (docs/deploying.md, "The store: DATA_DIR and DATABASE_URL").
   */
  sharedBuffers?: string;
  timings: Timing[];
}

export interface ScaleResult {
  operations: number;
  projects: number;
  busiest: { id: string; operations: number };
  runs: number;
  stores: ScaleStoreResult[];
}

/** The projects: three busy ones with six in ten operations (the busiest three in ten), the others sharing the rest. */
const projectIdsOf = (count: number) => Array.from({ length: count }, (_, i) => `scale-project-${String(i + 1).padStart(count > 99 ? 4 : 2, '0')}`);

/** The platform's actions, the everyday ones first: the seed picks early ones most often. */
const ACTIONS = ['start_compute', 'suspend_compute', 'apply_config', 'create_branch', 'create_timeline', 'create_compute', ...KNOWN_ACTIONS].filter(
  (action, i, all) => all.indexOf(action) === i,
);

/**
 * One chunk of operations [lo, hi) of `total`, created in time order from `start` over `span` seconds, and the
 * transitions the collector records for them: three in ten followed live (scheduling, running, then how they
 * ended, the queue a second to a minute: the first sightings of scheduling and running kept on the operation too, as
 * upsertOperations keeps them), the rest first seen ended. Statuses as the platform gives them: mostly
 * finished, some failed, error, cancelled, skipped; those still going at `now` running. Older than 30 days: gone
 * from the API's list, kept here.
 */
const SEED_CHUNK = `
WITH raw AS (
  SELECT g, random() AS rp, random() AS ra, random() AS rs, random() AS rd, random() AS rq, random() AS rr, random() AS rb, random() AS rj
  FROM generate_series($1::int, $2::int - 1) AS g
), shaped AS (
  SELECT
    ($6::text[])[CASE WHEN rp < 0.30 THEN 1 WHEN rp < 0.50 THEN 2 WHEN rp < 0.60 THEN 3
      ELSE 4 + least(cardinality($6::text[]) - 4, floor((rp - 0.60) / 0.40 * (cardinality($6::text[]) - 3))::int) END] AS project_id,
    md5('operation ' || g)::uuid::text AS id,
    ($5::text[])[1 + least(cardinality($5::text[]) - 1, floor(power(ra, 3) * cardinality($5::text[]))::int)] AS action,
    to_timestamp(floor($7::float8 + (g + rj) / $3::float8 * $4::float8)) AS created_at,
    CASE WHEN rs < 0.935 THEN 'finished' WHEN rs < 0.96 THEN 'failed' WHEN rs < 0.97 THEN 'error' WHEN rs < 0.99 THEN 'cancelled' ELSE 'skipped' END AS ended,
    round(150 * exp(4.5 * rd))::int AS duration_ms,
    CASE WHEN rs >= 0.935 AND rs < 0.97 THEN 1 + floor(rr * 3)::int WHEN rr < 0.04 THEN 1 ELSE 0 END AS failures,
    rq < 0.3 AS live, round(1000 + 60000 * power(rq / 0.3, 4))::int AS queue_ms,
    floor(rb * 20)::int AS branch
  FROM raw
), ops AS (
  SELECT s.*,
    CASE WHEN created_at + (queue_ms + duration_ms) * interval '1 ms' > $8::timestamptz THEN 'running' ELSE ended END AS status,
    created_at + (queue_ms + duration_ms) * interval '1 ms' AS updated_at,
    CASE WHEN live THEN created_at + interval '1 s' END AS waiting_seen_at,
    CASE WHEN live THEN created_at + (1000 + queue_ms) * interval '1 ms' END AS running_seen_at,
    'br-' || substr(md5(project_id || ' branch ' || branch), 1, 12) AS branch_id,
    'ep-' || substr(md5(project_id || ' compute ' || branch), 1, 12) AS endpoint_id
  FROM shaped s
), bodies AS (
  SELECT o.*, jsonb_build_object(
      'id', id, 'project_id', project_id, 'branch_id', branch_id, 'endpoint_id', endpoint_id, 'action', action, 'status', status,
      'failures_count', failures, 'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
      'updated_at', to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'total_duration_ms', duration_ms
    ) || CASE WHEN status IN ('failed', 'error') THEN '{"error": "the compute did not become ready in time"}'::jsonb ELSE '{}'::jsonb END AS body
  FROM ops o
), kept AS (
  INSERT INTO operations (project_id, id, action, status, branch_id, endpoint_id, created_at, updated_at, body, first_seen_at, last_listed_at, gone_at,
    waiting_seen_at, running_seen_at)
  SELECT project_id, id, action, status, branch_id, endpoint_id, created_at, updated_at, body, created_at + interval '1 s',
    least($8::timestamptz, created_at + interval '30 days'), CASE WHEN created_at + interval '30 days' < $8::timestamptz THEN created_at + interval '30 days' END,
    waiting_seen_at, running_seen_at
  FROM bodies
)
INSERT INTO operation_transitions (project_id, operation_id, status, previous_status, seen_at, during_backfill, operation, dispatched_at)
SELECT b.project_id, b.id, t.status, t.previous_status, t.seen_at, false, b.body || jsonb_build_object('status', t.status), t.seen_at
FROM bodies b CROSS JOIN LATERAL (VALUES
  (1, 'scheduling', NULL, b.waiting_seen_at),
  (2, 'running', 'scheduling', b.running_seen_at),
  (3, b.status, CASE WHEN b.live THEN 'running' END, b.updated_at + interval '1 s')
) AS t(n, status, previous_status, seen_at)
WHERE (b.live OR t.n = 3) AND NOT (t.n = 3 AND b.status = 'running')
ORDER BY b.created_at, b.id, t.n`;

/** The source and the projects it reaches, every history read to its end. */
async function seedSource(db: Queryable, now: Date, projectIds: readonly string[]): Promise<void> {
  await db.query(
    `INSERT INTO archive_sources (id, key_fingerprint, sealed_key, key_kind, label, created_at, last_read_at)
     VALUES ('scale-source', 'scale-fingerprint', 'not a sealed key', 'organization', 'Scale bench', $1::timestamptz - interval '3 years', $1)`,
    [now],
  );
  await db.query(
    `INSERT INTO archive_projects (source_id, project_id, name, org_name, backfilled, last_read_at, last_full_read_at)
     SELECT 'scale-source', id, 'project ' || right(id, 2), 'Scale org', true, $2, $2 FROM unnest($1::text[]) AS id`,
    [projectIds, now],
  );
}

/**
 * The indexes of the seeded tables as the migrations made them (and the primary key of operations, whose random
 * ids would be inserted all over its tree): dropped before the load and made again after it from their own
 * definitions, so the store ends with the schema the migrations give, built once rather than row by row.
 */
async function setIndexesAside(db: Pick<Db, 'query' | 'transaction'>, builders: readonly SeedingDb[]): Promise<() => Promise<void>> {
  const { rows: indexes } = await db.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename IN ('operations', 'operation_transitions')
       AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid IN ('operations'::regclass, 'operation_transitions'::regclass))`,
    [],
  );
  const { rows: keys } = await db.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'operations'::regclass AND contype = 'p'`,
    [],
  );
  for (const index of indexes) await db.query(`DROP INDEX ${index.name}`);
  for (const key of keys) await db.query(`ALTER TABLE operations DROP CONSTRAINT ${key.name}`);
  // Each build sorts its table's entries: in memory, with Postgres' parallel workers, rather than in the default
  // 64 MB's many runs on disk (what a database's administrator sets for a bulk load).
  const build = (builder: SeedingDb, statement: string) =>
    builder.transaction(async (tx) => {
      await tx.query("SELECT set_config('maintenance_work_mem', '1GB', true)");
      await tx.query(statement);
    });
  return async () => {
    // The key and the indexes, one per connection at a time: each build's sort is one process's, a core each.
    const statements = [...keys.map((key) => `ALTER TABLE operations ADD CONSTRAINT ${key.name} ${key.definition}`), ...indexes.map((i) => i.definition)];
    await eachOver(builders, statements, build);
    // Building an index counts the table's rows for the planner, which a store written row by row has only once
    // it is analyzed (autovacuum on Postgres, the console's upkeep on PGlite): forgotten again, as it stood.
    await db.query(
      `UPDATE pg_class SET reltuples = -1 WHERE oid IN ('operations'::regclass, 'operation_transitions'::regclass)
         OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN ('operations'::regclass, 'operation_transitions'::regclass))`,
    );
  };
}

/** The per-day figures made from the seeded rows by the rebuild command's own statements (server/store/day-figures.ts). */
async function fillDayFigures(db: Pick<Db, 'transaction'>): Promise<void> {
  const started = performance.now();
  const made = await rebuildDayFigures(db);
  console.log(
    `  per-day figures made from the rows (the rebuild command's SQL): ${made.figures.toLocaleString('en')} rows, ${made.queues.toLocaleString('en')} of queues, ${((performance.now() - started) / 1_000).toFixed(1)} s`,
  );
}

/** A connection the seed writes over. */
export type SeedingDb = Pick<Db, 'query' | 'transaction'>;

/** `work` done for every item, each connection of `over` taking the next item as it finishes one. */
async function eachOver<T>(over: readonly SeedingDb[], items: readonly T[], work: (db: SeedingDb, item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    over.map(async (db) => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(db, item);
      }
    }),
  );
}

const secondsSince = (started: number) => `${((performance.now() - started) / 1_000).toFixed(0)} s`;

/**
 * Seeds `total` operations ending at `now` over the connections `dbs` (the first one for what is done once), the
 * chunks and the index builds shared among them; returns how many transitions were recorded. Each chunk's random
 * numbers are seeded by its place, so the store is the same over one connection or several.
 */
export async function seed(dbs: readonly [SeedingDb, ...SeedingDb[]], total: number, now: Date, progress: (done: number) => void): Promise<number> {
  const [db] = dbs;
  const projectIds = projectIdsOf(projectsFor(total));
  await seedSource(db, now, projectIds);
  const span = YEARS * 365 * 86_400;
  const start = now.getTime() / 1_000 - span;
  const restoreIndexes = process.env.BENCH_SCALE_KEEP_INDEXES ? () => Promise.resolve() : await setIndexesAside(db, dbs);
  const chunks = Array.from({ length: Math.ceil(total / CHUNK) }, (_, i) => i * CHUNK);
  let done = 0;
  const rowsStarted = performance.now();
  await eachOver(dbs, chunks, async (over, lo) => {
    const hi = Math.min(total, lo + CHUNK);
    await over.transaction(async (tx) => {
      await tx.query('SELECT setseed($1)', [lo / total / 2]);
      await tx.query(SEED_CHUNK, [lo, hi, total, span, ACTIONS, projectIds, start, now]);
    });
    done += hi - lo;
    progress(done);
  });
  console.log(`  rows written over ${dbs.length} connection(s): ${secondsSince(rowsStarted)}; building the indexes…`);
  const indexesStarted = performance.now();
  await restoreIndexes();
  console.log(`  indexes built: ${secondsSince(indexesStarted)}`);
  await fillDayFigures(db);
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM operation_transitions', []);
  return rows[0]?.n ?? 0;
}

async function folderBytes(dir: string): Promise<number> {
  let sum = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sum += await folderBytes(full);
    else if (entry.isFile()) sum += (await stat(full)).size;
  }
  return sum;
}

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);
const median = (values: readonly number[]) => sorted(values)[Math.floor(values.length / 2)] ?? NaN;
/** Nearest rank. */
const p95 = (values: readonly number[]) => sorted(values)[Math.ceil(values.length * 0.95) - 1] ?? NaN;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, target: string, cookie: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: target, headers: { cookie, accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The server's own time: every duration in its Server-Timing, summed. */
const serverTime = (answer: Answer) => [...String(answer.headers['server-timing']).matchAll(/dur=([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);

/** The routes over `db` on a loopback server, with a session of the bench's key: what a signed-in page asks. */
async function routesOver(db: Db, now: number): Promise<{ port: number; cookie: string; close: () => Promise<void> }> {
  const seal = createSeal(undefined);
  const sessions = createSessions({ seal });
  const access: ProjectAccess = {
    check: (_who, _key, projectId) =>
      Promise.resolve({ kind: 'readable', project: { id: projectId, name: `project ${projectId.slice(-2)}`, orgId: undefined } }),
  };
  const store = { db: () => Promise.resolve(db), forReading: () => Promise.resolve(db) };
  const insights = createInsights({ store, seal, access, now: () => now });
  const read = () => Promise.reject(new Error('The scale bench reads no API.'));
  let cookie = '';
  const bench: Route[] = [
    openRoute({
      method: 'GET',
      url: '/bench/session',
      config: { needs: 'none' },
      handler: ({ req, res }) => {
        cookie = (sessions.start(req, KEY, 'organization', false).cookie.split(';')[0] ?? '').trim();
        res.end();
        return Promise.resolve();
      },
    }),
    openRoute({
      method: ['GET', 'HEAD'],
      url: '/*',
      config: { needs: 'none' },
      handler: ({ res }) => {
        res.statusCode = 404;
        res.end();
        return Promise.resolve();
      },
    }),
  ];
  const rooms = [
    { name: 'archive', routes: archiveRoutes({ store, read, seal, access, now: () => now }) },
    { name: 'insights', routes: insights.routes },
    { name: 'bench', routes: bench },
  ];
  const server = http.createServer();
  await mountRoutes(server, { rooms, sessions, withCsp: false, log: () => undefined });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await get(port, '/bench/session', '');
  return { port, cookie, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A person opening a page now and then: asked this many times, this long apart (longer than pg's 10 s idle default). */
const SPORADIC_RUNS = 4;
const SPORADIC_GAP_MS = 12_000;

/**
 * The history's pages, judged by their p95, are asked four times as often: of 15 samples the p95 (nearest rank) is
 * the slowest, one pause of the machine's; of 60 it is the 57th, three samples above it. They take ~25 ms each.
 */
const BY_P95 = { byP95: true, runs: RUNS * 4 };

async function timeRoute(
  port: number,
  cookie: string,
  what: string,
  target: string,
  targetMs: number,
  rowsOf: (body: unknown) => number,
  { warmups = WARMUPS, runs = RUNS, gapMs = 0, byP95 = false } = {},
): Promise<Timing> {
  const server: number[] = [];
  const roundTrip: number[] = [];
  let rows = 0;
  for (let i = 0; i < warmups + runs; i++) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const at = performance.now();
    const answer = await get(port, target, cookie);
    const ms = performance.now() - at;
    if (answer.status !== 200) throw new Error(`${target} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    if (i < warmups) continue;
    server.push(serverTime(answer));
    roundTrip.push(ms);
    rows = rowsOf(JSON.parse(answer.body));
  }
  return {
    what,
    path: target,
    serverMedianMs: median(server),
    serverP95Ms: p95(server),
    roundTripMedianMs: median(roundTrip),
    rows,
    targetMs,
    byP95,
    runs: server.length,
  };
}

const lengthOf = (key: string) => (body: unknown) => {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
  return Array.isArray(value) ? value.length : 0;
};

async function measureRoutes(db: Db, now: number, busiest: string): Promise<Timing[]> {
  console.log(`  timing the routes, ${WARMUPS} + ${RUNS} times each…`);
  const routes = await routesOver(db, now);
  try {
    const { port, cookie } = routes;
    const project = encodeURIComponent(busiest);
    return [
      await timeRoute(
        port,
        cookie,
        "90-day insights, the busiest project's",
        `/archive/projects/${project}/insights?window=90d`,
        TARGET_INSIGHTS_MS,
        lengthOf('actions'),
      ),
      await timeRoute(port, cookie, '90-day insights, every project (/insights)', '/archive/insights?window=90d', TARGET_INSIGHTS_MS, lengthOf('projects')),
      // The same read as a person makes it, now and then: the store's connections idle between (server/store/pg-db.ts).
      await timeRoute(
        port,
        cookie,
        `/insights again, ${SPORADIC_RUNS} times ${SPORADIC_GAP_MS / 1_000} s apart`,
        '/archive/insights?window=90d',
        TARGET_INSIGHTS_MS,
        lengthOf('projects'),
        { warmups: 0, runs: SPORADIC_RUNS, gapMs: SPORADIC_GAP_MS },
      ),
      await timeRoute(
        port,
        cookie,
        "History's first page, the busiest project's",
        `/archive/projects/${project}/operations?limit=${ARCHIVE_PAGE_SIZE}`,
        TARGET_HISTORY_PAGE_MS,
        lengthOf('operations'),
        BY_P95,
      ),
      await timeRoute(
        port,
        cookie,
        'History filtered, ?status=failed',
        `/archive/projects/${project}/operations?status=failed&limit=${ARCHIVE_PAGE_SIZE}`,
        TARGET_HISTORY_PAGE_MS,
        lengthOf('operations'),
        BY_P95,
      ),
      // The Status filter's Error choice: two statuses.
      await timeRoute(
        port,
        cookie,
        'History filtered, ?status=failed,error',
        `/archive/projects/${project}/operations?status=failed,error&limit=${ARCHIVE_PAGE_SIZE}`,
        TARGET_HISTORY_PAGE_MS,
        lengthOf('operations'),
        BY_P95,
      ),
    ];
  } finally {
    await routes.close();
  }
}

function progressLine(store: ScaleStore, total: number, started: number) {
  return (done: number) => {
    const seconds = (performance.now() - started) / 1_000;
    process.stdout.write(`\r  ${store}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')} operations, ${seconds.toFixed(0)} s`);
    if (done === total) process.stdout.write('\n');
  };
}

async function busiestProject(db: Db): Promise<{ id: string; operations: number }> {
  const { rows } = await db.query<{ id: string; operations: number }>(
    'SELECT project_id AS id, sum(runs)::int AS operations FROM operation_day_figures GROUP BY 1 ORDER BY 2 DESC LIMIT 1',
    [],
  );
  return rows[0] ?? { id: '', operations: 0 };
}

/** Operations and transitions a store already holds (a kept store, seeded by an earlier run). */
async function heldRows(db: Queryable): Promise<{ operations: number; transitions: number; seededAt: Date | null }> {
  const { rows } = await db.query<{ operations: number; transitions: number; seeded_at: Date | null }>(
    `SELECT (SELECT count(*)::int FROM operations) AS operations, (SELECT count(*)::int FROM operation_transitions) AS transitions,
       (SELECT last_read_at FROM archive_sources WHERE id = 'scale-source') AS seeded_at`,
    [],
  );
  const row = rows[0];
  return { operations: row?.operations ?? 0, transitions: row?.transitions ?? 0, seededAt: row?.seeded_at ?? null };
}

/** The instant a kept store's seed ended, its windows timed from there (the seed's `now`); else `now`. */
const timedAt = (held: { operations: number; seededAt: Date | null }, now: Date) =>
  held.operations > 0 && held.seededAt ? held.seededAt.getTime() : now.getTime();

/**
 * `BENCH_SCALE_PGLITE_DIR`: PGlite's DATA_DIR kept there rather than in a throwaway folder, seeded only when it holds
 * no operations yet (its migrations applied on opening, as a console's would be): a store seeded once is timed again.
 */
async function onPglite(total: number, now: Date): Promise<{ result: ScaleStoreResult; busiest: { id: string; operations: number } }> {
  const kept = process.env.BENCH_SCALE_PGLITE_DIR;
  const dataDir = kept ?? (await mkdtemp(path.join(tmpdir(), 'ops-console-bench-scale-')));
  try {
    const db = await openStore({ dataDir });
    try {
      const started = performance.now();
      const held = await heldRows(db);
      const transitions = held.operations > 0 ? held.transitions : await seed([db], total, now, progressLine('pglite', total, started));
      if (held.operations > 0) console.log(`  pglite: ${held.operations.toLocaleString('en')} operations kept in ${dataDir}, not seeded again`);
      const seedMs = held.operations > 0 ? NaN : performance.now() - started;
      // PGlite has no autovacuum: the console's upkeep vacuums and analyzes the record after a backfill, timed here.
      const upkeepStarted = performance.now();
      await vacuumRecord(db);
      const upkeepMs = performance.now() - upkeepStarted;
      const busiest = await busiestProject(db);
      const timings = await measureRoutes(db, timedAt(held, now), busiest.id);
      await db.close();
      return {
        result: { store: 'pglite', operations: held.operations || total, transitions, seedMs, upkeepMs, sizeBytes: await folderBytes(dataDir), timings },
        busiest,
      };
    } finally {
      await db.close().catch(() => undefined);
    }
  } finally {
    if (kept === undefined) await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The seed's own connection to Postgres: the console's driver gives every statement 15 s (server/store/pg-db.ts),
 * which building an index over a million rows on a busy machine may need more than.
 */
export function seedingClient(client: pg.Client): Pick<Db, 'query' | 'transaction'> {
  const query: Queryable['query'] = async (text, params) => ({
    rows: (await client.query(text, params === undefined ? undefined : [...params])).rows as never[],
  });
  return {
    query,
    async transaction(fn) {
      await client.query('BEGIN');
      try {
        const result = await fn({ query });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
  };
}

/**
 * `BENCH_SCALE_DATABASE_URL`: a Postgres server of the caller's own rather than a throwaway cluster, seeded only when
 * it holds no operations yet and left as it is afterwards.
 */
async function onPostgres(total: number, now: Date): Promise<{ result: ScaleStoreResult; busiest: { id: string; operations: number } }> {
  const kept = process.env.BENCH_SCALE_DATABASE_URL;
  const cluster = kept === undefined ? await ownPostgres('console') : undefined;
  const url = kept ?? cluster?.url ?? '';
  try {
    const db = await openStore({ databaseUrl: url });
    try {
      const started = performance.now();
      const held = await heldRows(db);
      let transitions = held.transitions;
      if (held.operations > 0) console.log(`  postgres: ${held.operations.toLocaleString('en')} operations kept, not seeded again`);
      else {
        // A connection per core: each chunk's statement and each index build is one process's work.
        const clients = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })] as const;
        await Promise.all(clients.map((client) => client.connect()));
        try {
          transitions = await seed([seedingClient(clients[0]), seedingClient(clients[1])], total, now, progressLine('postgres', total, started));
          // What autovacuum does after a load like this (insert-driven vacuum, then analyze), done now rather than waited for.
          const vacuumStarted = performance.now();
          await clients[0].query('VACUUM ANALYZE');
          console.log(`  vacuumed and analyzed: ${secondsSince(vacuumStarted)}`);
        } finally {
          await Promise.all(clients.map((client) => client.end()));
        }
      }
      const seedMs = held.operations > 0 ? NaN : performance.now() - started;
      const busiest = await busiestProject(db);
      const timings = await measureRoutes(db, timedAt(held, now), busiest.id);
      const { rows } = await db.query<{ bytes: string; buffers: string }>(
        "SELECT pg_database_size(current_database())::text AS bytes, current_setting('shared_buffers') AS buffers",
        [],
      );
      const sizeBytes = Number(rows[0]?.bytes ?? NaN);
      return {
        result: { store: 'postgres', operations: held.operations || total, transitions, seedMs, sizeBytes, sharedBuffers: rows[0]?.buffers, timings },
        busiest,
      };
    } finally {
      await db.close();
    }
  } finally {
    await cluster?.remove();
  }
}

/** `--scale-operations=N` seeds N operations instead of a million (to try the part quickly). */
export function scaleOperations(argv: readonly string[]): number {
  const text = argv.find((arg) => arg.startsWith('--scale-operations='))?.slice('--scale-operations='.length);
  const value = text === undefined ? SCALE_OPERATIONS : Number(text.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < 1_000) throw new Error(`--scale-operations must be a whole number of at least 1000 (got ${text ?? ''}).`);
  return value;
}

/** `--scale-stores=pglite,postgres`: the stores seeded and timed (both without it). */
export function scaleStores(argv: readonly string[]): ScaleStore[] {
  const text = argv.find((arg) => arg.startsWith('--scale-stores='))?.slice('--scale-stores='.length);
  if (text === undefined) return ['pglite', 'postgres'];
  const stores = text.split(',').map((store) => store.trim());
  const known = (store: string): store is ScaleStore => store === 'pglite' || store === 'postgres';
  if (stores.length === 0 || !stores.every(known)) throw new Error(`--scale-stores takes pglite, postgres or both (got ${text}).`);
  return stores.filter(known);
}

export async function measureScale(total: number, stores: readonly ScaleStore[] = ['pglite', 'postgres']): Promise<ScaleResult> {
  console.log(`\nSeeding ${total.toLocaleString('en')} operations over ${YEARS} years across ${projectsFor(total)} projects (${stores.join(', ')})…`);
  // On a whole second: the seed's last operations and the insights' window end at the same instant on both stores.
  const now = new Date(Math.floor(Date.now() / 1_000) * 1_000);
  const results: ScaleStoreResult[] = [];
  let busiest = { id: '', operations: 0 };
  if (stores.includes('pglite')) {
    const pglite = await onPglite(total, now);
    results.push(pglite.result);
    busiest = pglite.busiest;
  }
  if (stores.includes('postgres')) {
    const postgres = await onPostgres(total, now);
    results.push(postgres.result);
    if (busiest.id === '') busiest = postgres.busiest;
  }
  if (busiest.id === '') busiest = { id: projectIdsOf(1)[0] ?? '', operations: NaN };
  return { operations: total, projects: projectsFor(total), busiest, runs: RUNS, stores: results };
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

export function reportScale(result: ScaleResult): void {
  console.log(
    `\nThe whole record at scale: ${result.operations.toLocaleString('en')} operations, ${result.projects} projects, the busiest ${result.busiest.id} (${result.busiest.operations.toLocaleString('en')})`,
  );
  console.log(`  server time from the routes' Server-Timing; median and p95 of the runs after ${WARMUPS} warm-ups; round trip on loopback beside\n`);
  for (const store of result.stores) {
    console.log(
      `  ${store.store}: ${Number.isNaN(store.seedMs) ? 'kept, seeded before' : `seeded in ${(store.seedMs / 1_000).toFixed(0)} s`} (${store.transitions.toLocaleString('en')} transitions), ${store.upkeepMs === undefined ? '' : `upkeep ${(store.upkeepMs / 1_000).toFixed(1)} s, `}${mib(store.sizeBytes)} on disk${store.sharedBuffers === undefined ? '' : `, shared_buffers ${store.sharedBuffers}`}`,
    );
    for (const t of store.timings) {
      const verdict = judged(t);
      const met = `${verdict.as === 'p95' ? '(p95) ' : ''}${verdict.met ? 'ok' : 'MISSED'}`;
      console.log(
        `    ${t.what.padEnd(46)} ${t.serverMedianMs.toFixed(1).padStart(7)} ms (p95 ${t.serverP95Ms.toFixed(1).padStart(7)} of ${String(samplesOf(t, result.runs)).padStart(2)}, round trip ${t.roundTripMedianMs.toFixed(1).padStart(7)}) ${String(t.rows).padStart(5)} rows  ≤ ${t.targetMs} ms ${met}`,
      );
    }
  }
}
