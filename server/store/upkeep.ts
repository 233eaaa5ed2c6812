// The embedded store's upkeep (PGlite runs no autovacuum): the record's two big tables vacuumed and analyzed, as
// a Postgres server's autovacuum does by itself. Vacuum marks the pages whose rows every reader sees, so an
// index-only scan (the insights' window, operations_window) reads the index alone rather than each row's page,
// and takes back the space of rows written over; analyze gives the planner the tables' sizes and values.
// docs/benchmarks.md, "The whole record at scale", has what it buys and costs at a million operations.
// On the embedded store each statement runs in the worker's upkeep lane (lanes.ts, pglite-worker.ts): it starts
// only when no request's statement waits and none has come for a moment, so requests go first.
import type { Queryable } from './db';
import { FIGURE_TABLES } from './day-figures';
import { inLane } from './lanes';

/** The tables (the per-day figures' too: read from their index alone), two short statements each (VACUUM, then ANALYZE): a reader waits for one of them at a time at most. */
export const RECORD_TABLES: readonly string[] = [
  'operations',
  'operation_transitions',
  ...Object.values(FIGURE_TABLES).flatMap((pair) => [pair.figures, pair.queues]),
];

/** Vacuums and analyzes the record's tables (outside any transaction: VACUUM cannot run inside one). */
export async function vacuumRecord(db: Queryable): Promise<void> {
  await inLane('upkeep', async () => {
    for (const table of RECORD_TABLES) {
      await db.query(`VACUUM ${table}`);
      await db.query(`ANALYZE ${table}`);
    }
  });
}

/**
 * Where the store's write-ahead log ends: it moves only when something is written, so upkeep is skipped when it
 * has not moved since the last run ended (nothing changed: nothing to vacuum or analyze).
 */
export async function writtenUpTo(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  return rows[0]?.lsn ?? '';
}
