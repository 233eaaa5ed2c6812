// Advisory locks: what one instance of a deployment does at a time. The migrations hold MIGRATION_LOCK for
// their transaction (migrations.ts); the collector holds COLLECTOR_LOCK on a connection of its own for as
// long as it collects, and beats on that connection (collector_lease) so a holder that went silent is
// waited out, not overlapped (server/lead/lease.ts).
import type { Queryable } from './db';

/** The collector's advisory lock key (the migrations have another). */
export const COLLECTOR_LOCK = 4_022_002;

// The lock held by this connection's session (a bigint key: classid is its high half, objid its low, objsubid 1).
const HELD_HERE = `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND pid = pg_backend_pid() AND granted)`;

/** Takes the collector's lock for this connection's session, if no other session holds it. */
export async function tryCollectorLock(connection: Queryable): Promise<boolean> {
  const { rows } = await connection.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [COLLECTOR_LOCK]);
  return rows[0]?.taken ?? false;
}

/**
 * How long to wait before collecting after taking the lock: until `silentStopMs` after the previous holder's
 * last beat (by the server's clock), 0 when it stopped cleanly or beat long ago.
 */
export async function takeoverWaitMs(connection: Queryable, silentStopMs: number): Promise<number> {
  const { rows } = await connection.query<{ wait_ms: number }>(
    `SELECT greatest(0, extract(epoch FROM beat_at - clock_timestamp()) * 1000 + $1)::float8 AS wait_ms FROM collector_lease WHERE beat_at IS NOT NULL`,
    [silentStopMs],
  );
  return Math.ceil(rows[0]?.wait_ms ?? 0);
}

/** One heartbeat: stamps the time if this session still holds the lock; false when it does not. */
export async function beatCollectorLease(connection: Queryable): Promise<boolean> {
  const { rows } = await connection.query<{ held: boolean }>(
    `INSERT INTO collector_lease (id, beat_at) SELECT true, clock_timestamp() WHERE ${HELD_HERE}
     ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at RETURNING true AS held`,
    [COLLECTOR_LOCK],
  );
  return rows[0]?.held ?? false;
}

/** A clean stop: the next holder need not wait this one out. */
export async function clearCollectorLease(connection: Queryable): Promise<void> {
  await connection.query(`UPDATE collector_lease SET beat_at = NULL WHERE ${HELD_HERE}`, [COLLECTOR_LOCK]);
}

/**
 * The server ends this session once it has been silent (no beat) for `ms`: the lock is released even when the
 * instance vanished without a word. Postgres 14 and later; on an older server the keepalives alone do it.
 */
export async function endSessionWhenSilent(connection: Queryable, ms: number): Promise<void> {
  try {
    await connection.query(`SELECT set_config('idle_session_timeout', $1, false)`, [`${Math.round(ms)}ms`]);
  } catch (error) {
    if (!(error && typeof error === 'object' && 'code' in error && error.code === '42704')) throw error;
  }
}
