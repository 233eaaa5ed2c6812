// Advisory locks: what one instance of a deployment does at a time. The migrations hold MIGRATION_LOCK for
// their transaction (migrations.ts); the collector holds COLLECTOR_LOCK on a connection of its own for as
// long as it collects (server/collector/lease.ts).
import type { Queryable } from './db';

/** The collector's advisory lock key (the migrations have another). */
export const COLLECTOR_LOCK = 4_022_002;

/** Takes the collector's lock for this connection's session, if no other session holds it. */
export async function tryCollectorLock(connection: Queryable): Promise<boolean> {
  const { rows } = await connection.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [COLLECTOR_LOCK]);
  return rows[0]?.taken ?? false;
}
