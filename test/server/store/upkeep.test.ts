import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../server/store';
import { upsertOperations } from '../../../server/store/operations';
import { vacuumRecord } from '../../../server/store/upkeep';
import { DRIVERS, openTestStore } from './store-drivers';

// The embedded store's upkeep (server/store/upkeep.ts), on both drivers: after it the planner knows the record's
// size and its pages are marked seen by every reader, which an index-only scan needs to skip reading them.

describe.each(DRIVERS)('the record’s upkeep on %s', (driver) => {
  let db: Db;

  beforeAll(async () => {
    ({ db } = await openTestStore(driver));
    const created = Date.parse('2026-11-22T12:00:00Z');
    const listed = Array.from({ length: 300 }, (_, i) => {
      const at = new Date(created - i * 60_000).toISOString();
      const op = {
        id: `op-${i}`,
        project_id: 'p-upkeep',
        action: 'start_compute',
        status: 'finished',
        failures_count: 0,
        created_at: at,
        updated_at: at,
        total_duration_ms: 1_000,
      };
      return { operation: op, body: op };
    });
    await upsertOperations(db, 'p-upkeep', listed, new Date(created), true);
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('leaves the planner the tables’ sizes and their pages visible to every reader', async () => {
    await vacuumRecord(db);
    const { rows } = await db.query<{ table: string; tuples: number; visible: boolean }>(
      `SELECT relname AS table, reltuples::float8 AS tuples, relallvisible > 0 AS visible FROM pg_class
       WHERE relname IN ('operations', 'operation_transitions') ORDER BY relname`,
    );
    // On the shared Postgres cluster other tests' transactions may still be open, and a page is visible to every
    // reader only once no transaction older than its rows is: PGlite has no other.
    const visible = driver === 'pglite';
    expect(rows).toEqual([
      { table: 'operation_transitions', tuples: 300, visible: expect.toSatisfy((seen: boolean) => seen || !visible) as boolean },
      { table: 'operations', tuples: 300, visible: expect.toSatisfy((seen: boolean) => seen || !visible) as boolean },
    ]);
  });
});
