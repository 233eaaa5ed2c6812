import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/api/schemas';
import { openStore, type Db } from '../../../server/store';
import { loadMigrations, migrate } from '../../../server/store/migrations';
import { markGone, upsertOperations, type ListedOperation } from '../../../server/store/operations';
import { claimUndispatched } from '../../../server/store/transitions';
import { isRevokedInStore, pruneRevocations, revocationsSince, storeRevocation } from '../../../server/store/revoked-sessions';
import { DRIVERS, openTestStore } from './store-drivers';

const T0 = new Date('2026-11-22T12:00:00Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1_000);

function listed(id: string, status: string, extra: Partial<Operation> & Record<string, unknown> = {}): ListedOperation {
  const operation: Operation = {
    id,
    project_id: 'p-1',
    action: 'apply_config',
    status,
    branch_id: 'br-1',
    failures_count: 0,
    created_at: '2026-11-22T11:00:00.123456Z',
    updated_at: '2026-11-22T11:00:01Z',
    total_duration_ms: 10,
    ...extra,
  };
  return { operation, body: operation };
}

describe.each(DRIVERS)('the store on %s', (driver) => {
  let db: Db;
  let url: string | undefined;

  beforeAll(async () => {
    ({ db, url } = await openTestStore(driver));
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('applies each migration once, recorded, also when opened again', async () => {
    const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toContain(1);
    expect(await migrate(db, await loadMigrations())).toEqual([]);
    if (url) {
      // Two instances starting together: the advisory lock lets one apply, the other finds it done.
      const [a, b] = await Promise.all([openStore({ databaseUrl: url }), openStore({ databaseUrl: url })]);
      const again = await a.query<{ count: number }>('SELECT count(*)::int AS count FROM schema_migrations');
      expect(again.rows[0]?.count).toBe(rows.length);
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('upserts operations and records a transition per first sighting and status change', async () => {
    const first = await upsertOperations(db, 'p-1', [listed('op-a', 'running'), listed('op-b', 'finished', { unknown_field: 'kept' })], T0, true);
    expect(first).toEqual({ added: 2, transitions: 2 });
    const same = await upsertOperations(db, 'p-1', [listed('op-a', 'running')], later(5), false);
    expect(same).toEqual({ added: 0, transitions: 0 });
    const changed = await upsertOperations(db, 'p-1', [listed('op-a', 'finished')], later(10), false);
    expect(changed).toEqual({ added: 0, transitions: 1 });

    const transitions = await claimUndispatched(db, 1_000);
    expect(transitions.map((t) => [t.operation_id, t.previous_status, t.status, t.during_backfill])).toEqual([
      ['op-a', null, 'running', true],
      ['op-b', null, 'finished', true],
      ['op-a', 'running', 'finished', false],
    ]);
    expect(transitions[2]?.seen_at.toISOString()).toBe(later(10).toISOString());
    const { rows } = await db.query<{ body: Record<string, unknown>; created: string }>(
      `SELECT body, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created FROM operations WHERE id = 'op-b'`,
      [],
    );
    expect(rows[0]?.body.unknown_field).toBe('kept');
    expect(rows[0]?.created).toBe('2026-11-22T11:00:00.123456');
  });

  it('marks what a whole read did not list as gone, never deletes it, and clears the mark when listed again', async () => {
    await upsertOperations(db, 'p-1', [listed('op-a', 'finished')], later(100), false);
    expect(await markGone(db, 'p-1', later(100), later(101))).toBe(1);
    const gone = await db.query<{ id: string; gone_at: Date | null }>(`SELECT id, gone_at FROM operations WHERE project_id = 'p-1' ORDER BY id`, []);
    expect(gone.rows.map((row) => [row.id, row.gone_at?.toISOString() ?? null])).toEqual([
      ['op-a', null],
      ['op-b', later(101).toISOString()],
    ]);
    await upsertOperations(db, 'p-1', [listed('op-b', 'finished')], later(200), false);
    const back = await db.query<{ gone_at: Date | null }>(`SELECT gone_at FROM operations WHERE id = 'op-b'`, []);
    expect(back.rows[0]?.gone_at).toBeNull();
  });

  it('keeps revocations until the session would have expired', async () => {
    await storeRevocation(db, 'sid-1', later(3_600), T0);
    await storeRevocation(db, 'sid-old', later(10), T0);
    expect(await isRevokedInStore(db, 'sid-1', later(20))).toBe(true);
    expect(await isRevokedInStore(db, 'sid-old', later(20))).toBe(false);
    expect((await revocationsSince(db, 0, later(20))).map((row) => row.sid)).toEqual(['sid-1']);
    // Why it ended travels with it, for every instance to answer the same.
    await storeRevocation(db, 'sid-refused', later(3_600), later(30), 'rejected');
    expect((await revocationsSince(db, 0, later(40))).map((row) => [row.sid, row.reason])).toEqual([
      ['sid-1', 'signed-out'],
      ['sid-refused', 'rejected'],
    ]);
    expect(await pruneRevocations(db, later(20))).toBe(1);
  });
});
