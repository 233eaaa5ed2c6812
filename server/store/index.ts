// openStore: the store the configuration names (DATABASE_URL's Postgres server, else PGlite in
// DATA_DIR/store), migrated before it is handed out. A running server holds it through store.ts.
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from '../log/logger';
import type { Outage } from '../log/outage';
import { StoreUnavailableError, type Db } from './db';
import { loadMigrations, migrate } from './migrations';
import { openPgDb } from './pg-db';
import { openPgliteDb } from './pglite-db';

export type { Db, Queryable, QueryResult, SqlValue } from './db';

export interface StoreConfig {
  /** DATABASE_URL: a Postgres server; undefined: PGlite in `dataDir`/store. */
  databaseUrl?: string | undefined;
  /** DATA_DIR; undefined with no databaseUrl: PGlite in memory (tests). */
  dataDir?: string | undefined;
  /** Where the pg driver tells of connections that ended. */
  log?: Log;
  /** The store's outage (store.ts), which the pg driver's failures and answers join. */
  outage?: Outage;
  /** Aborted while a fresh embedded store is being made: it is given up at once, leaving nothing behind (a stop). */
  signal?: AbortSignal;
}

export const STORE_DIR = 'store';

/**
 * How long a migration's statement may take on a Postgres server: building an index over a store of a million
 * operations takes longer than a query's deadline (pg-db.ts) on a small machine (docs/benchmarks.md).
 */
export const MIGRATION_TIMEOUT_MS = 15 * 60_000;

/**
 * A fresh embedded store is made whole in a folder beside its place (initdb and every migration), then moved into
 * place and opened there: a stop or a crash meanwhile leaves no half-made store in DATA_DIR/store, and a stop
 * need not wait for the seconds of its initdb (the signal ends the worker).
 */
async function makeFreshPglite(dir: string, signal: AbortSignal | undefined): Promise<void> {
  const making = `${dir}.making`;
  await rm(making, { recursive: true, force: true });
  try {
    const db = await openPgliteDb(making, signal ? { signal } : {});
    try {
      signal?.throwIfAborted();
      await migrate(db, await loadMigrations());
    } finally {
      await db.close();
    }
    signal?.throwIfAborted();
    await rename(making, dir);
  } catch (error) {
    await rm(making, { recursive: true, force: true });
    throw signal?.aborted ? new StoreUnavailableError('The store was closed while it opened.', { cause: error }) : error;
  }
}

export async function openStore(config: StoreConfig): Promise<Db> {
  const options = { ...(config.log ? { log: config.log } : {}), ...(config.outage ? { outage: config.outage } : {}) };
  const pgliteDir = config.dataDir === undefined ? undefined : path.resolve(config.dataDir, STORE_DIR);
  if (!config.databaseUrl && pgliteDir !== undefined && !existsSync(pgliteDir)) await makeFreshPglite(pgliteDir, config.signal);
  const db = config.databaseUrl ? openPgDb(config.databaseUrl, options) : await openPgliteDb(pgliteDir);
  // On Postgres the migrations run on a connection of their own with the longer deadline, then it is closed.
  const migrating = config.databaseUrl ? openPgDb(config.databaseUrl, { ...options, poolSize: 1, queryTimeoutMs: MIGRATION_TIMEOUT_MS }) : db;
  try {
    await migrate(migrating, await loadMigrations());
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  } finally {
    if (migrating !== db) await migrating.close().catch(() => undefined);
  }
  return db;
}
