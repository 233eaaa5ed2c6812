import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/api/schemas';
import { inFlightSql, isInFlight, KNOWN_STATUSES, RECENT_FAILURE_MS, type OperationFacts } from '../../../src/model/operation-status';
import { sqlParams } from '../../../src/model/sql-params';
import type { Db } from '../../../server/store';
import { loadMigrations, migrate } from '../../../server/store/migrations';
import { upsertOperations } from '../../../server/store/operations';
import { DRIVERS, openTestStore } from './store-drivers';

// "In flight" is decided once (src/model/operation-status.ts) and asked twice: isInFlight over an operation
// object in the browser, inFlightSql over a row of the store. Both are run here over the same operations.

const NOW = Date.parse('2026-11-22T12:00:00Z');
const at = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

/** When a failed operation's status changed: recent, old, and either side of the 15 minutes, to the microsecond. */
const UPDATED: Record<string, string> = {
  recent: at(NOW - 5 * MINUTE),
  old: at(NOW - 120 * MINUTE),
  'exactly 15 min': at(NOW - RECENT_FAILURE_MS),
  'just under 15 min': at(NOW - RECENT_FAILURE_MS + 1),
  '15 min less 0.5 ms': `${at(NOW - RECENT_FAILURE_MS).slice(0, -1)}500Z`,
};

/** Its retry: ahead, behind, at now and a hair either side, none, and what is no time or an odd one. */
const RETRY: Record<string, string | undefined> = {
  absent: undefined,
  future: at(NOW + 60 * MINUTE),
  past: at(NOW - 60 * MINUTE),
  'exactly now': at(NOW),
  'now + 1 ms': at(NOW + 1),
  'now + 0.5 ms': `${at(NOW).slice(0, -1)}500Z`,
  'with an offset, ahead': '2026-11-22T13:30:00+01:00',
  'not a time': 'soon',
  'a 30th of February ahead': '2027-02-30T00:00:00Z',
  'past year 9999': '+010000-01-01T00:00:00Z',
};

const UNKNOWN_STATUSES = ['paused', 'queued_for_retry', 'Running', 'running ', 'other', ''];

function operation(id: string, status: string, updatedAt: string, retryAt?: string): Operation {
  return {
    id,
    project_id: 'p-flight',
    action: 'apply_config',
    status,
    failures_count: status === 'failed' ? 1 : 0,
    created_at: at(NOW - 24 * 60 * MINUTE),
    updated_at: updatedAt,
    total_duration_ms: 1_000,
    ...(retryAt === undefined ? {} : { retry_at: retryAt }),
  };
}

/** Every status, known and not; every failed one under each pair of times. */
const OPERATIONS: Operation[] = [
  ...KNOWN_STATUSES.flatMap((status) => [operation(`${status}-recent`, status, UPDATED.recent ?? ''), operation(`${status}-old`, status, UPDATED.old ?? '')]),
  ...UNKNOWN_STATUSES.map((status, i) => operation(`unknown-${i}`, status, UPDATED.old ?? '')),
  ...Object.entries(RETRY).flatMap(([retry, retryAt]) =>
    Object.entries(UPDATED).map(([updated, updatedAt]) => operation(`failed, retry ${retry}, updated ${updated}`, 'failed', updatedAt, retryAt)),
  ),
];

describe.each(DRIVERS)('the in-flight rule in the store on %s', (driver) => {
  let db: Db;

  beforeAll(async () => {
    ({ db } = await openTestStore(driver));
    await upsertOperations(
      db,
      'p-flight',
      OPERATIONS.map((op) => ({ operation: op, body: op })),
      new Date(NOW),
      false,
    );
  }, 60_000);

  afterAll(async () => {
    await db.close();
  });

  it('selects with its SQL form exactly the operations isInFlight counts', async () => {
    const params = sqlParams();
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM operations WHERE ${inFlightSql(NOW, params)}`, params.values);
    const expected = OPERATIONS.filter((op) => isInFlight(op, NOW)).map((op) => op.id);
    expect(rows.map((row) => row.id).sort()).toEqual(expected.sort());
    // The cases are worth comparing: both sides of the rule are among them.
    expect(expected.length).toBeGreaterThan(10);
    expect(OPERATIONS.length - expected.length).toBeGreaterThan(10);
  });

  it('counts a failed operation with neither time known, as isInFlight does, and none with one time known and past', async () => {
    const facts: (OperationFacts & { id: string })[] = [
      { id: 'neither', status: 'failed' },
      { id: 'only an old change', status: 'failed', updated_at: UPDATED.old },
      { id: 'only a past retry', status: 'failed', retry_at: RETRY.past },
      { id: 'only a retry ahead', status: 'failed', retry_at: RETRY.future },
      { id: 'finished, neither', status: 'finished' },
    ];
    const params = sqlParams(2);
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM jsonb_to_recordset($1::jsonb) AS operations (id text, status text, updated_at timestamptz, retry_at timestamptz) WHERE ${inFlightSql(NOW, params)}`,
      [JSON.stringify(facts), ...params.values],
    );
    const ids = rows.map((row) => row.id).sort();
    expect(ids).toEqual(
      facts
        .filter((op) => isInFlight(op, NOW))
        .map((op) => op.id)
        .sort(),
    );
    expect(ids).toEqual(['neither', 'only a retry ahead']);
  });

  it('fills retry_at for operations kept before its migration from the object the API gave, when that is a time; anything else stays null', async () => {
    const given: Record<string, unknown> = {
      'a time': '2026-11-22T12:30:00Z',
      'with an offset': '2026-11-22T13:30:00.250+01:00',
      'to the microsecond': '2026-11-22T12:30:00.123456Z',
      'not a time': 'soon',
      'a 30th of February': '2027-02-30T00:00:00Z',
      'a month 13': '2026-13-01T00:00:00Z',
      "Postgres' infinity": 'infinity',
      "Postgres' now": 'now',
      'no zone': '2026-11-22T12:30:00',
      'a number': 1_795_350_600_000,
      null: null,
    };
    const kept = Object.entries(given).map(([id, retryAt]) => {
      const op = operation(`kept: ${id}`, 'failed', UPDATED.old ?? '');
      return { operation: op, body: { ...op, retry_at: retryAt } };
    });
    await upsertOperations(
      db,
      'p-kept',
      [...kept, { operation: operation('kept: absent', 'failed', UPDATED.old ?? ''), body: operation('kept: absent', 'failed', UPDATED.old ?? '') }],
      new Date(NOW),
      false,
    );
    // The store as it was before migration 003: no column, not recorded.
    await db.query('ALTER TABLE operations DROP COLUMN retry_at');
    await db.query('DELETE FROM schema_migrations WHERE version = 3');

    expect(await migrate(db, await loadMigrations())).toEqual([3]);

    const { rows } = await db.query<{ id: string; retry_at: string | null }>(
      `SELECT id, to_char(retry_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS retry_at FROM operations WHERE project_id = 'p-kept'`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.id.slice('kept: '.length), row.retry_at]))).toEqual({
      'a time': '2026-11-22T12:30:00.000000Z',
      'with an offset': '2026-11-22T12:30:00.250000Z',
      'to the microsecond': '2026-11-22T12:30:00.123456Z',
      'not a time': null,
      'a 30th of February': null,
      'a month 13': null,
      "Postgres' infinity": null,
      "Postgres' now": null,
      'no zone': null,
      'a number': null,
      null: null,
      absent: null,
    });
  });
});
