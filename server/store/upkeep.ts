// The embedded store's upkeep (PGlite runs no autovacuum): the record's two big tables vacuumed and analyzed, as
// a Postgres server's autovacuum does by itself. Vacuum marks the pages whose rows every reader sees, so an
// index-only scan (the insights' window, operations_window) reads the index alone rather than each row's page,
// and takes back the space of rows written over; analyze gives the planner the tables' sizes and values.
// docs/benchmarks.md, "The whole record at scale", has what it buys and costs at a million operations.
import type { Queryable } from './db';

/** The tables, one statement each: a reader waits for one of them at a time, never for both. */
const RECORD_TABLES = ['operations', 'operation_transitions'] as const;

/** Vacuums and analyzes the record's tables (outside any transaction: VACUUM cannot run inside one). */
export async function vacuumRecord(db: Queryable): Promise<void> {
  for (const table of RECORD_TABLES) await db.query(`VACUUM (ANALYZE) ${table}`);
}
