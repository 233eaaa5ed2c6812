// operations: one row per operation, the API's object as last seen (and, in the same statement, the
// operation_transitions row of each status change seen; server/store/transitions.ts reads them). The
// history's filters are answered here with their own SQL form (features/history/filters: sqlCondition),
// and "in flight" with the status rules' (model/operation-status: inFlightSql), over the columns they name.
import type { Operation } from '../../src/api/schemas';
import { filtersOnly, sqlCondition, type HistoryFilters } from '../../src/model/filters';
import { QUEUE_STATUSES } from '../../src/model/insight-figures';
import { inFlightSql } from '../../src/model/operation-status';
import { sqlParams } from '../../src/model/sql-params';
import type { Queryable, SqlValue } from './db';
import { dayFiguresInserts } from './day-figures';
import { announceChanges, inFeedTransaction, isDb } from './live-changes';
import { rankSeconds } from './operation-rank';

/** What an operation's share of the per-day figures is read from: as it was before a page, and as the page leaves it. */
const SHARE_COLUMNS = ['id', 'status', 'action', 'created_at', 'total_duration_ms', 'failures_count', 'waiting_seen_at', 'running_seen_at'] as const;
const shareInserts = dayFiguresInserts('shares', '$1', 'weight', true);

/** An operation as the API listed it: validated fields, and the object itself as it came (unknown keys kept). */
export interface ListedOperation {
  operation: Operation;
  body: unknown;
}

export interface UpsertResult {
  /** Operations not in the store before. */
  added: number;
  /** Status changes recorded (new operations included: their first status). */
  transitions: number;
}

const YEAR_1 = Date.parse('0001-01-01T00:00:00Z');
const YEAR_10000 = Date.parse('+010000-01-01T00:00:00Z');

/**
 * retry_at as the instant the status rules read it (Date.parse, to the millisecond), so the in-flight rule's
 * SQL form agrees with isInFlight on every row; null when it is not a time. A time outside the years an ISO
 * time writes in four digits is stored as Postgres' infinity on its side: only which side of now it is matters.
 */
function retryAtColumn(retryAt: string | undefined): string | null {
  const at = retryAt === undefined ? NaN : Date.parse(retryAt);
  if (Number.isNaN(at)) return null;
  if (at >= YEAR_10000) return 'infinity';
  if (at < YEAR_1) return '-infinity';
  return new Date(at).toISOString();
}

/**
 * The ranks of a page's operations and of the store's others in the same seconds (operation-rank.ts): what
 * the page lists, in its order, and what the store holds of those seconds, read first.
 */
async function pageRanks(db: Queryable, projectId: string, listed: readonly ListedOperation[], follows: boolean): Promise<Map<string, number>> {
  const page = listed.map(({ operation: op }) => ({ id: op.id, at: Date.parse(op.created_at) })).filter((op) => !Number.isNaN(op.at));
  const seconds = [...new Set(page.map((op) => new Date(op.at).toISOString()))];
  const { rows } = await db.query<{ id: string; at: number; rank: number }>(
    `SELECT id, (extract(epoch FROM created_at) * 1000)::float8 AS at, rank FROM operations
     WHERE project_id = $1 AND created_at = ANY($2::timestamptz[])`,
    [projectId, seconds],
  );
  return rankSeconds(page, rows, follows);
}

/**
 * Records a page of operations: new ones inserted, known ones updated (and no longer gone), and one
 * transition for each first sighting or changed status, in one statement; then the order of the seconds
 * the page touches, as the API listed them (`rank`). `follows`: the page goes on from a previous page of
 * the same read (by its cursor). The statement also keeps the queue's two sightings on the operation
 * (`waiting_seen_at`, `running_seen_at`: the first transition to each of QUEUE_STATUSES, migration 008), and
 * moves each operation's share of the per-day figures (server/store/day-figures.ts): a re-read that changes
 * nothing moves nothing, a late status, duration or failure moves it from where it was counted.
 */
export async function upsertOperations(
  db: Queryable,
  projectId: string,
  listed: readonly ListedOperation[],
  seenAt: Date,
  duringBackfill: boolean,
  follows = false,
): Promise<UpsertResult> {
  if (listed.length === 0) return { added: 0, transitions: 0 };
  // The change feed numbers its rows in commit order (server/store/live-changes.ts): in a transaction of its own under its lock.
  if (isDb(db)) return inFeedTransaction(db, (tx) => upsertOperations(tx, projectId, listed, seenAt, duringBackfill, follows));
  const ranks = await pageRanks(db, projectId, listed, follows);
  const pageIds = new Set(listed.map(({ operation }) => operation.id));
  const rows = JSON.stringify(
    listed.map(({ operation: op, body }) => ({
      rank: ranks.get(op.id) ?? 0,
      id: op.id,
      action: op.action,
      status: op.status,
      branch_id: op.branch_id ?? null,
      endpoint_id: op.endpoint_id ?? null,
      created_at: op.created_at,
      updated_at: op.updated_at,
      retry_at: retryAtColumn(op.retry_at),
      body,
    })),
  );
  const { rows: result } = await db.query<{ added: number; transitions: number; live: number }>(
    `WITH incoming AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb)
         AS x(id text, action text, status text, branch_id text, endpoint_id text, created_at timestamptz, updated_at timestamptz, retry_at timestamptz, body jsonb, rank integer)
     ),
     previous AS (
       SELECT ${SHARE_COLUMNS.map((c) => `o.${c}`).join(', ')} FROM operations o WHERE o.project_id = $1 AND o.id IN (SELECT id FROM incoming)
     ),
     upserted AS (
       INSERT INTO operations (project_id, id, action, status, branch_id, endpoint_id, created_at, updated_at, retry_at, body, rank, first_seen_at, last_listed_at,
         waiting_seen_at, running_seen_at)
       SELECT $1, id, action, status, branch_id, endpoint_id, created_at, updated_at, retry_at, body, rank, $3, $3,
         CASE WHEN status = $5 THEN $3::timestamptz END, CASE WHEN status = $6 THEN $3::timestamptz END FROM incoming
       ON CONFLICT (project_id, id) DO UPDATE SET action = EXCLUDED.action, status = EXCLUDED.status, branch_id = EXCLUDED.branch_id,
         endpoint_id = EXCLUDED.endpoint_id, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, retry_at = EXCLUDED.retry_at, body = EXCLUDED.body,
         rank = EXCLUDED.rank, last_listed_at = EXCLUDED.last_listed_at, gone_at = NULL,
         -- The first sighting of each stays, as the earliest of its transitions does.
         waiting_seen_at = coalesce(operations.waiting_seen_at, EXCLUDED.waiting_seen_at), running_seen_at = coalesce(operations.running_seen_at, EXCLUDED.running_seen_at)
       RETURNING ${SHARE_COLUMNS.join(', ')}
     ),
     -- Each operation's share of the per-day figures moved: its new one added, the one it had (if any) taken away.
     shares AS (
       SELECT 1 AS weight, * FROM upserted UNION ALL SELECT -1, * FROM previous
     ),
     day_figures AS (${shareInserts.figures} RETURNING 1),
     day_queues AS (${shareInserts.queues} RETURNING 1),
     day_project_figures AS (${shareInserts.projectFigures} RETURNING 1),
     day_project_queues AS (${shareInserts.projectQueues} RETURNING 1),
     month_project_figures AS (${shareInserts.monthFigures} RETURNING 1),
     month_project_queues AS (${shareInserts.monthQueues} RETURNING 1),
     counts AS (${shareInserts.counts} RETURNING 1),
     project_counts AS (${shareInserts.projectCounts} RETURNING 1),
     -- A data-modifying WITH runs whether or not it is read.
     changed AS (
       INSERT INTO operation_transitions (project_id, operation_id, status, previous_status, seen_at, during_backfill, operation)
       SELECT $1, i.id, i.status, p.status, $3, $4, i.body FROM incoming i LEFT JOIN previous p ON p.id = i.id
       WHERE p.id IS NULL OR p.status IS DISTINCT FROM i.status
       ORDER BY i.created_at, i.id
       RETURNING project_id, operation_id, status, operation, seq
     ),
     -- The change feed (docs/live.md): the same changes, but a backfill's, for the pages that follow them.
     live AS (
       INSERT INTO live_changes (project_id, operation_id, status, operation)
       SELECT project_id, operation_id, status, operation FROM changed WHERE NOT $4 ORDER BY seq
       RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM incoming) - (SELECT count(*)::int FROM previous) AS added,
       (SELECT count(*)::int FROM changed) AS transitions, (SELECT count(*)::int FROM live) AS live`,
    [projectId, rows, seenAt, duringBackfill, QUEUE_STATUSES.waiting, QUEUE_STATUSES.running],
  );
  // The store's other operations of those seconds, placed again around the page's.
  const moved = [...ranks].filter(([id]) => !pageIds.has(id)).map(([id, rank]) => ({ id, rank }));
  if (moved.length > 0) {
    await db.query(
      `UPDATE operations o SET rank = x.rank FROM jsonb_to_recordset($2::jsonb) AS x(id text, rank integer)
       WHERE o.project_id = $1 AND o.id = x.id AND o.rank IS DISTINCT FROM x.rank`,
      [projectId, JSON.stringify(moved)],
    );
  }
  const counts = result[0] ?? { added: 0, transitions: 0, live: 0 };
  if (counts.live > 0) await announceChanges(db);
  return { added: counts.added, transitions: counts.transitions };
}

/** After a whole read that began at `readStart`: what it did not list is gone from the API (kept here, marked). */
export async function markGone(db: Queryable, projectId: string, readStart: Date, now: Date): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    'UPDATE operations SET gone_at = $3 WHERE project_id = $1 AND gone_at IS NULL AND last_listed_at < $2 RETURNING id',
    [projectId, readStart, now],
  );
  return rows.length;
}

export interface StoredOperation {
  body: unknown;
  gone_at: Date | null;
  last_listed_at: Date;
  /** created_at to the microsecond, UTC: the keyset cursor's first part. */
  created_key: string;
  /** Its place among the operations of its created_at (larger is newer): the cursor's second. */
  rank: number;
  id: string;
}

/** A page position: after (older than) this operation. */
export interface OperationsCursor {
  createdAt: string;
  rank: number;
  id: string;
}

const CREATED_KEY = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The columns of a page's rows (StoredOperation). */
const PAGE_COLUMNS = `body, gone_at, last_listed_at, ${CREATED_KEY} AS created_key, rank, id`;
const NEWEST_FIRST = 'ORDER BY created_at DESC, rank DESC, id DESC';

/**
 * One project's operations matching `filters`, newest first (within a second, as the API listed them: `rank`),
 * `limit` of them after `cursor`: one query.
 *
 * Filtered by several statuses (the Error choice: `failed`, `error`), the page is a merge of one page per status,
 * each the statement of that status alone (its filter an equality, so it walks operations_by_status newest first
 * and stops at the page's end), the others' filters and the cursor in each: Postgres merges them in order (a
 * Merge Append) and stops at the page's end too. As one condition (`status = ANY(…)`) the index gives its rows in
 * no order, and every match was read and sorted (docs/benchmarks.md, "What the figures showed"). A row has one
 * status, so no row is in two of them; the order is the same total order, so the page is the same rows.
 */
export async function operationsPage(
  db: Queryable,
  projectId: string,
  filters: HistoryFilters,
  cursor: OperationsCursor | undefined,
  limit: number,
): Promise<StoredOperation[]> {
  const params: SqlValue[] = [projectId];
  let after = '';
  if (cursor) {
    params.push(cursor.createdAt, cursor.rank, cursor.id);
    after = ` AND (created_at, rank, id) < ($${params.length - 2}::timestamptz, $${params.length - 1}::integer, $${params.length}::text)`;
  }
  params.push(limit);
  const limitParam = `$${params.length}`;
  /** The page of the operations matching `some` (the filters' own SQL form), its values added to the parameters. */
  const page = (some: HistoryFilters, columns: string) => {
    const condition = sqlCondition(some, params.length + 1);
    params.push(...condition.params);
    return `SELECT ${columns} FROM operations
     WHERE project_id = $1 AND (${condition.where})${after}
     ${NEWEST_FIRST} LIMIT ${limitParam}`;
  };
  const statuses = [...new Set(filters.status)];
  const sql =
    statuses.length > 1
      ? `SELECT body, gone_at, last_listed_at, created_key, rank, id FROM (
     ${statuses.map((status) => `(${page({ ...filters, status: [status] }, `${PAGE_COLUMNS}, created_at`)})`).join('\n     UNION ALL ')}
     ) AS merged ${NEWEST_FIRST} LIMIT ${limitParam}`
      : page(filters, PAGE_COLUMNS);
  const { rows } = await db.query<StoredOperation>(sql, params);
  return rows;
}

/**
 * How many of a project's operations match the filters: the count a page of them is out of. Filtered by status and
 * action alone (or not at all), from the counts kept per action and status (operation_counts, kept with the
 * operations by upsertOperations): a few rows, where the operations are millions for the largest projects.
 */
export async function matchCount(db: Queryable, projectId: string, filters: HistoryFilters): Promise<number> {
  const condition = sqlCondition(filters, 2);
  const counted = filtersOnly(filters, ['status', 'action']);
  const sql = counted
    ? `SELECT coalesce(sum(operations), 0) AS count FROM operation_counts WHERE project_id = $1 AND (${condition.where})`
    : `SELECT count(*) AS count FROM operations WHERE project_id = $1 AND (${condition.where})`;
  const { rows } = await db.query<{ count: string | number }>(sql, [projectId, ...condition.params]);
  return Number(rows[0]?.count ?? 0);
}

/** Where an operation stands in the store's order (the cursor after it); undefined when the store has not got it. */
export async function operationPosition(db: Queryable, projectId: string, id: string): Promise<OperationsCursor | undefined> {
  const { rows } = await db.query<{ created_key: string; rank: number; id: string }>(
    `SELECT ${CREATED_KEY} AS created_key, rank, id FROM operations WHERE project_id = $1 AND id = $2`,
    [projectId, id],
  );
  const row = rows[0];
  return row ? { createdAt: row.created_key, rank: row.rank, id: row.id } : undefined;
}

/**
 * Activity from the store: the projects' operations in flight at `now` (isInFlight's rule, in its SQL form)
 * or created or changed since `since`.
 */
export async function recentOperations(db: Queryable, projectIds: readonly string[], since: Date, now: Date, limit: number): Promise<StoredOperation[]> {
  if (projectIds.length === 0) return [];
  const params = sqlParams(3);
  const inFlight = inFlightSql(now.getTime(), params);
  const { rows } = await db.query<StoredOperation>(
    `SELECT body, gone_at, last_listed_at, ${CREATED_KEY} AS created_key, rank, id FROM operations
     WHERE project_id = ANY($1::text[]) AND (updated_at >= $2 OR created_at >= $2 OR ${inFlight})
     ORDER BY created_at DESC, rank DESC, id DESC LIMIT ${params.add(limit)}`,
    [projectIds, since, ...params.values],
  );
  return rows;
}

/** An operation in flight, as the API last described it (the collector checked it against OperationSchema). */
export interface InFlightOperation {
  project_id: string;
  operation: Operation;
}

/** The operations still listed by the API and in flight at `now` (isInFlight's rule), of these projects or, with null, of all. */
export async function inFlightOperations(db: Queryable, now: Date, projectIds: readonly string[] | null): Promise<InFlightOperation[]> {
  const params = sqlParams();
  const inFlight = inFlightSql(now.getTime(), params);
  const projects = projectIds === null ? '' : ` AND project_id = ANY(${params.add(projectIds)}::text[])`;
  const { rows } = await db.query<InFlightOperation>(
    `SELECT project_id, body AS operation FROM operations WHERE gone_at IS NULL AND ${inFlight}${projects}`,
    params.values,
  );
  return rows;
}

/** What a project's usual durations are read from: an ended operation's few fields the rule needs. */
export interface DurationSample {
  action: string;
  status: string;
  created_at: string;
  total_duration_ms: number;
}

/**
 * A project's newest `limit` operations, whatever their status, as the history's first pages hold them: which
 * of them count toward a usual duration is the status model's decision (src/model/usual-durations.ts), not SQL's.
 */
export async function newestOperations(db: Queryable, projectId: string, limit: number): Promise<DurationSample[]> {
  const { rows } = await db.query<DurationSample>(
    `SELECT action, status, body->>'created_at' AS created_at, coalesce((body->>'total_duration_ms')::bigint, 0)::float8 AS total_duration_ms
     FROM operations WHERE project_id = $1 ORDER BY created_at DESC, rank DESC, id DESC LIMIT $2`,
    [projectId, limit],
  );
  return rows;
}

/** One project's figures for the projects list: operations in flight now, the newest one's creation, how many are kept. */
export interface ProjectSummaryRow {
  project_id: string;
  in_flight: number;
  last_created_at: Date | null;
  operations: number;
}

/** The projects list's figures of these projects, in one statement (isInFlight's rule in SQL, over what the API still lists). */
export async function projectSummaries(db: Queryable, projectIds: readonly string[], now: Date): Promise<ProjectSummaryRow[]> {
  if (projectIds.length === 0) return [];
  const params = sqlParams(2);
  const inFlight = inFlightSql(now.getTime(), params);
  const { rows } = await db.query<ProjectSummaryRow>(
    `SELECT project_id, (count(*) FILTER (WHERE gone_at IS NULL AND ${inFlight}))::int AS in_flight,
       max(created_at) AS last_created_at, count(*)::int AS operations
     FROM operations WHERE project_id = ANY($1::text[]) GROUP BY project_id`,
    [projectIds, ...params.values],
  );
  return rows;
}
