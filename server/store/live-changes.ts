// The change feed and the watches (docs/live.md): live_changes holds each status change the collector (or the
// follower of what is watched) recorded, numbered by `seq` in commit order, so a reader asks for "the changes
// after N"; live_watches holds what the pages have open, until an expiry, so the instance that leads the
// collector sees what every instance's pages watch. Rows are numbered under a transaction-level advisory lock:
// a writer that numbered a change commits before the next writer numbers one, so a reader's cursor never passes
// a row that commits later. Each write announces itself: NOTIFY on LIVE_CHANNEL for the other instances (sent at
// commit), and the in-process listeners (a PGlite store's one process) once the transaction has committed.
import type { Db, Queryable } from './db';

/** The NOTIFY channel a write to the feed is announced on (its payload says nothing: the listener reads the feed). */
export const LIVE_CHANNEL = 'ops_console_live';
/** The advisory lock key the feed's writers number their rows under (the migrations' and the collector's are others). */
export const LIVE_FEED_LOCK = 4_022_003;
/** How long a change is kept: a page away longer is told `reset` and reads again. */
export const LIVE_KEEP_MS = 60 * 60_000;

export interface ChangeRow {
  seq: number;
  project_id: string;
  operation_id: string;
  status: string;
  /** The operation as the API described it when the change was seen. */
  operation: unknown;
}

export type ChangesAfter =
  | { kind: 'changes'; rows: ChangeRow[]; last: number }
  /** Too many, or older than the feed keeps: the reader starts again from `last`. */
  | { kind: 'reset'; last: number };

const written = new Set<() => void>();

/** Calls `listener` after each transaction of this process that wrote to the feed has committed; returns its removal. */
export function onFeedWritten(listener: () => void): () => void {
  written.add(listener);
  return () => written.delete(listener);
}

export function isDb(db: Queryable): db is Db {
  return typeof (db as Partial<Db>).transaction === 'function';
}

/** A write to the feed in a transaction of its own, under the feed's lock; this process's listeners hear it once it has committed. */
export async function inFeedTransaction<T>(db: Pick<Db, 'transaction'>, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const result = await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LIVE_FEED_LOCK]);
    return fn(tx);
  });
  for (const listener of [...written]) listener();
  return result;
}

/** Tells the other instances (at commit) that the feed has new rows. */
export async function announceChanges(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [LIVE_CHANNEL, '']);
}

export interface NewChange {
  projectId: string;
  operationId: string;
  status: string;
  operation: unknown;
}

/** Appends changes (the follower's: what is watched and not archived), numbered in commit order, and announces them. */
export async function appendChanges(db: Db, changes: readonly NewChange[]): Promise<void> {
  if (changes.length === 0) return;
  await inFeedTransaction(db, async (tx) => {
    await tx.query(
      `INSERT INTO live_changes (project_id, operation_id, status, operation)
       SELECT project_id, operation_id, status, operation FROM jsonb_to_recordset($1::jsonb) AS x(project_id text, operation_id text, status text, operation jsonb)`,
      [JSON.stringify(changes.map((c) => ({ project_id: c.projectId, operation_id: c.operationId, status: c.status, operation: c.operation })))],
    );
    await announceChanges(tx);
  });
}

/** The feed's newest sequence (0 when it is empty). */
export async function latestChange(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ last: string | null }>('SELECT max(seq)::text AS last FROM live_changes');
  return Number(rows[0]?.last ?? 0);
}

/**
 * The changes after `after`, oldest first, at most `limit`; `reset` when there are more than that, or when
 * rows after `after` were pruned already (the feed's oldest row is past the next one asked for).
 */
export async function changesAfter(db: Queryable, after: number, limit: number): Promise<ChangesAfter> {
  const { rows } = await db.query<Omit<ChangeRow, 'seq'> & { seq: string }>(
    `SELECT seq::text AS seq, project_id, operation_id, status, operation FROM live_changes WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [after, limit + 1],
  );
  if (rows.length > limit) return { kind: 'reset', last: await latestChange(db) };
  if (after > 0 && (await prunedPast(db, after))) return { kind: 'reset', last: await latestChange(db) };
  const changes = rows.map((row) => ({ ...row, seq: Number(row.seq) }));
  return { kind: 'changes', rows: changes, last: changes.at(-1)?.seq ?? after };
}

/**
 * Whether rows after `after` were pruned: the oldest row kept is past the next one (a rolled-back number just
 * below it reads as pruned too: a reset costs a page one read), or none is kept and numbers were handed out past it.
 */
async function prunedPast(db: Queryable, after: number): Promise<boolean> {
  const { rows } = await db.query<{ first: string | null; handed: string; called: boolean }>(
    'SELECT (SELECT min(seq)::text FROM live_changes) AS first, last_value::text AS handed, is_called AS called FROM live_changes_seq_seq',
  );
  const row = rows[0];
  if (!row) return false;
  if (row.first !== null) return Number(row.first) > after + 1;
  return row.called && Number(row.handed) > after;
}

/** Removes the changes older than `keepMs` (the store's upkeep); how many went. */
export async function pruneChanges(db: Queryable, now: Date, keepMs = LIVE_KEEP_MS): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`WITH gone AS (DELETE FROM live_changes WHERE at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`, [
    new Date(now.getTime() - keepMs),
  ]);
  const { rows: watches } = await db.query<{ n: number }>(
    `WITH gone AS (DELETE FROM live_watches WHERE until < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [now],
  );
  return (rows[0]?.n ?? 0) + (watches[0]?.n ?? 0);
}

export interface WatchRow {
  project_id: string;
  /** '' : the project's newest operations. */
  operation_id: string;
  key_fingerprint: string;
  sealed_key: string;
}

/** Keeps what a session watches until `until` (one row per target and key; a later watch moves it on). */
export async function putWatches(db: Queryable, rows: readonly WatchRow[], until: Date): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO live_watches (project_id, operation_id, key_fingerprint, sealed_key, until)
     SELECT project_id, operation_id, key_fingerprint, sealed_key, $2 FROM jsonb_to_recordset($1::jsonb)
       AS x(project_id text, operation_id text, key_fingerprint text, sealed_key text)
     ON CONFLICT (project_id, operation_id, key_fingerprint) DO UPDATE SET sealed_key = EXCLUDED.sealed_key, until = greatest(live_watches.until, EXCLUDED.until)`,
    [JSON.stringify(rows), until],
  );
}

/** What is watched now: one row per target (with one of the keys that watch it). */
export async function activeWatches(db: Queryable, now: Date): Promise<WatchRow[]> {
  const { rows } = await db.query<WatchRow>(
    `SELECT DISTINCT ON (project_id, operation_id) project_id, operation_id, key_fingerprint, sealed_key FROM live_watches
     WHERE until > $1 ORDER BY project_id, operation_id, until DESC`,
    [now],
  );
  return rows;
}
