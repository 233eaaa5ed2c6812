import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadiness, httpStatusOf } from '../../../server/ops/readiness';
import type { Log } from '../../../server/log/logger';
import { openStore, type Db } from '../../../server/store';
import { loadMigrations, migrate, MigrationFailedError, RENUMBERED } from '../../../server/store/migrations';
import { createStore } from '../../../server/store/store';
import { pgliteDataDir } from '../../support/pglite-template';
import { testTempDir } from '../../support/test-tmp';
import { DRIVERS, postgresDatabase, type Driver } from './store-drivers';

// "Migrations that cannot go missing" (server/store/migrations.ts, docs/operations.md "Migrations"): one gapless
// sequence; a store that recorded the notifications' old numbers (050, 051) has its records renamed, nothing applied
// again; readiness compares the whole set recorded with the set shipped, so a store whose record lost one row is not
// ready and /readyz names it; and a store that will not open says why, in /readyz and in the log.

const idle = { lastSuccessAt: () => undefined, failingSince: () => undefined };

async function recorded(db: Db): Promise<{ version: number; name: string }[]> {
  return (await db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version')).rows;
}

/** Where a store of `driver` lives, as createStore takes it. */
async function place(driver: Driver): Promise<{ databaseUrl: string | undefined; dataDir: string }> {
  if (driver === 'pglite') return { databaseUrl: undefined, dataDir: await pgliteDataDir() };
  return { databaseUrl: await postgresDatabase(), dataDir: await testTempDir('migrations-') };
}

it('ships one sequence with no gap: 001 to the newest, each number once', async () => {
  const versions = (await loadMigrations()).map((migration) => migration.version);
  expect(versions).toEqual(versions.map((_version, index) => index + 1));
  expect(versions).not.toContain(50);
});

describe.each(DRIVERS)('the migrations on %s', (driver) => {
  let where: { databaseUrl: string | undefined; dataDir: string };
  let db: Db;
  let closed = false;

  beforeAll(async () => {
    where = await place(driver);
    db = await openStore(where);
  }, 60_000);
  afterAll(async () => {
    if (!closed) await db.close();
  });

  it('renames the records of a store that applied the notifications as 050 and 051, once, and applies nothing again', async () => {
    const before = await recorded(db);
    for (const { from, to, name } of RENUMBERED)
      await db.query('UPDATE schema_migrations SET version = $1::int, name = $2::text WHERE version = $3::int', [from, `0${from}${name.slice(3)}`, to]);
    expect((await recorded(db)).map((row) => row.version)).toEqual(expect.arrayContaining([50, 51]));

    expect(await migrate(db, await loadMigrations())).toEqual([]);
    expect(await recorded(db)).toEqual(before);
    expect(await migrate(db, await loadMigrations())).toEqual([]);
  });

  it("stays ready with a newer server's migration recorded, and names it", { timeout: 60_000 }, async () => {
    await db.query("INSERT INTO schema_migrations (version, name) VALUES (99, '099_from_a_newer_server.sql')");
    try {
      const store = { kind: driver, opened: () => db, failing: () => 0, openError: () => undefined };
      const readiness = await createReadiness({ store, leading: () => false, collector: idle, draining: () => false })();
      expect(httpStatusOf(readiness)).toBe(200);
      expect(readiness.checks.store).toMatchObject({ status: 'ok', unknown_migrations: [99] });
    } finally {
      await db.query('DELETE FROM schema_migrations WHERE version = 99');
    }
  });

  it('is not ready when its record lost one migration, names it, and a store that will not open says why', { timeout: 60_000 }, async () => {
    const store = { kind: driver, opened: () => db, failing: () => 0, openError: () => undefined };
    const ready = createReadiness({ store, leading: () => false, collector: idle, draining: () => false });
    expect((await ready()).checks.store).toMatchObject({ status: 'ok', migration: (await loadMigrations()).length });

    await db.query('DELETE FROM schema_migrations WHERE version = 3');
    const missing = await ready();
    expect(httpStatusOf(missing)).toBe(503);
    expect(missing).toMatchObject({
      status: 'not ready',
      checks: {
        store: {
          status: 'migrations missing',
          missing: ['003_operation_retry_at.sql'],
          detail: expect.stringContaining('003_operation_retry_at.sql') as string,
        },
      },
    });

    // Applied again over what it already made, it fails: the error names the file and carries the database's own words.
    const failed = await migrate(db, await loadMigrations()).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(MigrationFailedError);
    expect((failed as MigrationFailedError).message).toMatch(/^Migration 003_operation_retry_at\.sql could not be applied: .*already exists/);

    // The store as a server holds it, started on that store: it serves, not ready, and both /readyz and the log say why.
    await db.close();
    closed = true;
    const lines: string[] = [];
    const log: Log = (message) => void lines.push(message);
    const held = await createStore({ ...where, log, retryMs: 60_000, startWaitMs: 30_000 });
    try {
      // PGlite opens in the background: what was kept can be read (or is known not to be) once the start's open ended.
      await held.atStart;
      expect(held.opened()).toBeUndefined();
      const readiness = await createReadiness({ store: held, leading: () => false, collector: idle, draining: () => false })();
      expect(httpStatusOf(readiness)).toBe(503);
      expect(readiness.checks.store).toMatchObject({
        status: 'migrations missing',
        missing: ['003_operation_retry_at.sql'],
        detail: expect.stringMatching(/Migration 003_operation_retry_at\.sql could not be applied: .*already exists/) as string,
      });
      expect(lines.filter((line) => line.includes('003_operation_retry_at.sql could not be applied'))).toHaveLength(1);
      expect(lines.join('\n')).toMatch(/already exists/);
    } finally {
      await held.close();
    }
  });
});
