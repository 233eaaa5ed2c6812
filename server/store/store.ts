// The store as a running server holds it (docs/architecture.md, "The store"): opened when it can be, and
// never a reason not to serve. PGlite opens at start, in the background, in its worker thread (pglite-db.ts),
// under DATA_DIR's lock, taken at start: the server listens at once, the log says when the store is ready, and
// what needs it meanwhile waits for the open (OPEN_WAIT_MS at most, then a 503 naming the store). A read of a
// store that did not exist at start does not wait (nothing was kept in it yet). A Postgres server may be down when
// an instance starts, or go away later: sign-in and live pages do not need it, so the instance serves, tries the
// store again every few seconds, and runs what waits for the store (sign-outs, the collector, notifications)
// once it opens. Until then whatever asks gets StoreUnavailableError (a 503 naming the store).
import { existsSync } from 'node:fs';
import { mkdir, chmod } from 'node:fs/promises';
import path from 'node:path';
import { DeadlineExceeded, settledWithin, withDeadline } from '../lib/deadline';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import { StoreUnavailableError, type Db } from './db';
import { DataDirInUseError, lockDataDir, type DataDirLock } from './data-dir-lock';
import { openStore, STORE_DIR, type StoreConfig } from './index';
import { compareMigrations, loadMigrations, MigrationFailedError, recordedVersions } from './migrations';
import { describeDatabaseUrl, isConnectionFailure } from './pg-db';

/** How often a Postgres that could not be opened is tried again. */
export const STORE_RETRY_MS = 5_000;
/** How long a start waits for Postgres before serving without it. */
export const START_WAIT_MS = 5_000;
/** How long what needs the embedded store waits for its open at start before a 503 (a fresh DATA_DIR's initdb: seconds). */
export const OPEN_WAIT_MS = 30_000;

export interface Store {
  readonly kind: 'pglite' | 'postgres';
  /** Where it is, for messages: the folder, or the server's host and database (never its password). */
  readonly where: string;
  /** The store, opened now if it was not yet; rejects with StoreUnavailableError while it cannot be. */
  db: () => Promise<Db>;
  /** The store if it is open (nothing is opened). */
  opened: () => Db | undefined;
  /**
   * The store for a read: PGlite only if it was opened (never opened, nothing was ever kept in it, and a read
   * does not pay its start to learn that); Postgres must answer (else StoreUnavailableError).
   */
  forReading: () => Promise<Db | undefined>;
  /** Calls `listener` once the store is open (at once if it is). */
  onOpen: (listener: (db: Db) => void) => void;
  /** Failures since the store last answered (0: it answers, or was never asked): readiness and metrics read it. */
  failing: () => number;
  /** Why it last could not be opened (undefined once open, or never tried): readiness names it. */
  openError: () => Error | undefined;
  /** Whether an open is under way (PGlite's, begun at start): readiness says so. */
  opening: () => boolean;
  /**
   * Settles once what was kept at start can be read, or is known not to be: the open begun at start has ended
   * (open or not) when PGlite's folder held a store, or Postgres's first try; at once for a fresh DATA_DIR.
   */
  atStart: Promise<void>;
  close: () => Promise<void>;
}

export interface StoreOptions {
  databaseUrl: string | undefined;
  /** DATA_DIR (PGlite's folder is DATA_DIR/store). */
  dataDir: string;
  log: Log;
  retryMs?: number;
  startWaitMs?: number;
  openWaitMs?: number;
  /** What opens the store (openStore): a test holds it open to see what is answered meanwhile. */
  open?: (config: StoreConfig) => Promise<Db>;
  /**
   * false: PGlite opens when something first needs it, not at start (the screen tests' servers, which never use
   * the store and should not pay an initdb each).
   */
  openAtStart?: boolean;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function createStore({
  databaseUrl,
  dataDir,
  log,
  retryMs = STORE_RETRY_MS,
  startWaitMs = START_WAIT_MS,
  openWaitMs = OPEN_WAIT_MS,
  open = openStore,
  openAtStart = true,
}: StoreOptions): Promise<Store> {
  const kind = databaseUrl ? 'postgres' : 'pglite';
  const dir = path.resolve(dataDir);
  const where = databaseUrl ? describeDatabaseUrl(databaseUrl) : path.join(dir, STORE_DIR);
  let lock: DataDirLock | undefined;
  // A DATA_DIR that cannot be a folder (a file, no permission) holds no store to share: the server starts,
  // and what needs the store hears why it cannot be opened.
  let unusable: string | undefined;
  if (!databaseUrl) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      lock = await lockDataDir(dir);
    } catch (error) {
      if (error instanceof DataDirInUseError) throw error;
      unusable = `DATA_DIR ${dir} cannot be used (${describe(error)})`;
      log(`Store: ${unusable}; the archive and notifications are unavailable`, { event: 'store.unusable', level: 'error' });
    }
  }
  let db: Db | undefined;
  let opening: Promise<Db> | undefined;
  let closed = false;
  // A stop while a fresh embedded store is being made gives it up rather than waiting for its initdb.
  const closing = new AbortController();
  // One line when the store stops answering (opening it, or a query on the open one), one when it answers again.
  const outage = createOutage(log, { event: 'store.unavailable', fields: { store: where }, over: `Store: ${where} answers again` });
  let retry: NodeJS.Timeout | undefined;
  let openError: Error | undefined;
  // A migration that fails (or an embedded store that will not open) is not the store being away: said once per
  // distinct cause, at error level, with its text.
  let saidCause: string | undefined;
  const listeners: ((db: Db) => void)[] = [];

  // Versions recorded that this code does not ship: a newer server's (a rolling upgrade), said once per open.
  const sayUnknownMigrations = async (store: Db) => {
    try {
      const { unknown } = compareMigrations(await recordedVersions(store), await loadMigrations());
      if (unknown.length > 0)
        log(`Store: ${where} has recorded migrations this server does not ship (${unknown.join(', ')}): a newer server's; this one runs without them`, {
          event: 'store.migrations_unknown',
          level: 'warn',
        });
    } catch {
      // Readiness reads the same record and says what it finds.
    }
  };

  const attempt = (): Promise<Db> => {
    if (unusable) return Promise.reject(new StoreUnavailableError(`The console's store cannot be opened: ${unusable}.`));
    opening ??= (async () => {
      const openStarted = performance.now();
      try {
        const store = await open({ databaseUrl, dataDir: dir, log, outage, signal: closing.signal });
        if (closed) {
          await store.close();
          throw new StoreUnavailableError('The store was closed while it opened.');
        }
        db = store;
        openError = undefined;
        void sayUnknownMigrations(store);
        saidCause = undefined;
        outage.recovered();
        for (const listener of listeners.splice(0)) listener(store);
        if (kind === 'pglite')
          log(`Store: ${where} is ready (opened in ${((performance.now() - openStarted) / 1_000).toFixed(1)} s)`, { event: 'store.ready' });
        return store;
      } catch (error) {
        opening = undefined;
        openError = error instanceof Error ? error : new Error(describe(error));
        if (error instanceof MigrationFailedError) {
          if (saidCause !== error.message)
            log(`Store: ${where} cannot be opened: ${error.message} (not recorded: ${error.missing.join(', ')})`, {
              event: 'store.migration_failed',
              level: 'error',
              migration: error.migration,
            });
        } else if (kind === 'pglite' && saidCause !== describe(error)) {
          log(`Store: ${where} cannot be opened (${describe(error)}); the archive and notifications are unavailable`, {
            event: 'store.unusable',
            level: 'error',
          });
        }
        saidCause = describe(error);
        // PGlite's failures are its folder's: nothing to wait out. Postgres may come back (or its record be mended):
        // tried again in the background.
        if (kind === 'postgres' && !closed) {
          if (!(error instanceof MigrationFailedError))
            outage.failed(`Store: ${where} cannot be opened (${describe(error)}); serving without it and trying again every ${retryMs / 1_000} s`);
          clearTimeout(retry);
          retry = setTimeout(() => void attempt().catch(() => undefined), retryMs);
          retry.unref();
        }
        if (error instanceof StoreUnavailableError) throw error;
        throw kind === 'postgres' && isConnectionFailure(error)
          ? new StoreUnavailableError(`The console's store (${where}) is unavailable: ${describe(error)}.`, { cause: error })
          : new StoreUnavailableError(`The console's store (${where}) could not be opened: ${describe(error)}.`, { cause: error });
      }
    })();
    return opening;
  };

  // Whether the folder held a store at start: a read of one that did not waits for nothing (nothing was kept yet).
  const keptAtStart = kind === 'postgres' || (!unusable && existsSync(where));
  let atStart: Promise<void> = Promise.resolve();
  if (kind === 'postgres') {
    const first = attempt().catch(() => undefined);
    await settledWithin(first, startWaitMs);
  } else if (!unusable && (openAtStart || keptAtStart)) {
    // In the background: the server listens meanwhile. One that will not open (a migration fails) serves without
    // it: readiness and the log say why.
    const first = attempt().then(
      () => undefined,
      () => undefined,
    );
    if (keptAtStart) atStart = first;
  }

  /** The open under way, waited for `openWaitMs` at most. */
  const waitForOpen = async (under: Promise<Db>): Promise<Db> => {
    try {
      return await withDeadline(under, openWaitMs);
    } catch (error) {
      if (error instanceof DeadlineExceeded)
        throw new StoreUnavailableError(`The console's store (${where}) is still opening after ${openWaitMs / 1_000} s; try again in a moment.`);
      throw error;
    }
  };

  return {
    kind,
    where,
    db: () => (db ? Promise.resolve(db) : kind === 'pglite' ? waitForOpen(attempt()) : attempt()),
    opened: () => db,
    forReading: () => {
      if (db) return Promise.resolve(db);
      if (kind === 'postgres') return attempt();
      // Opening: what was kept at start is worth the wait; a store that did not exist holds nothing yet.
      return keptAtStart && opening ? waitForOpen(opening) : Promise.resolve(undefined);
    },
    onOpen(listener) {
      if (db) listener(db);
      else listeners.push(listener);
    },
    failing: () => outage.failures,
    openError: () => (db ? undefined : openError),
    opening: () => !db && opening !== undefined,
    atStart,
    async close() {
      closed = true;
      closing.abort();
      clearTimeout(retry);
      await opening?.catch(() => undefined);
      await db?.close();
      db = undefined;
      lock?.release();
    },
  };
}

/** The store as a Db that opens it on first use (what is made at start, before the store can answer: notifications). */
export function dbOf(store: Pick<Store, 'db'>): Db {
  return {
    query: async (text, params) => (await store.db()).query(text, params),
    transaction: async (fn) => (await store.db()).transaction(fn),
    close: () => Promise.resolve(),
  };
}
