// The archive in one process: the store (PGlite in DATA_DIR, a pg pool on DATABASE_URL, or a worker's
// link to the primary's PGlite), the kept keys' sealer, and, where this process collects, the collector:
// at once on PGlite (the process that owns the folder), under the advisory lock on DATABASE_URL.
// PGlite's first start costs seconds: a DATA_DIR without a store opens it only when first needed (a
// source kept, a sign-out), so a console nobody archives with starts as fast as before.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startCollector, type Collector } from '../collector/collector';
import { collectWhileHoldingLock, type Lease } from '../collector/lease';
import type { ServerConfig } from '../config';
import type { ApiFetch } from '../http/node-bridge';
import { openStore, STORE_DIR, type Db } from '../store';
import { linkedStore, serveStoreLink } from '../store/db-link';
import { createKeySealer, type KeySealer } from './sealed-keys';

const LINK_CHECK_MS = 3_000;

export interface StoreLink {
  origin: string;
  token: string;
}

export interface ArchiveOptions {
  config: ServerConfig;
  /** The session secret the kept keys are sealed under (undefined: random per start, as sessions). */
  secret: string | undefined;
  fetchApi: ApiFetch;
  log: (line: string) => void;
  /** Whether this process may collect: a single process or the primary, never a worker. */
  collect: boolean;
  /** A worker of several on PGlite: the primary's store. */
  link?: StoreLink | undefined;
}

export interface Archive {
  sealer: KeySealer;
  driver: 'pglite' | 'postgres' | 'link';
  /** The store, opened now if it was not yet. */
  db: () => Promise<Db>;
  /** The store if it is open (on a worker's link: if the primary's is). */
  opened: () => Db | undefined;
  /** As `opened`, asking the primary on a worker's link. */
  openedAnywhere: () => Promise<Db | undefined>;
  /** Calls `listener` once the store is open (at once if it is). */
  onOpen: (listener: (db: Db) => void) => void;
  isCollecting: () => boolean;
  /** API requests the collector in this process has sent. */
  collectorRequests: () => number;
  wake: () => void;
  /** The primary's PGlite lent to its workers. */
  lend: () => Promise<StoreLink>;
  stop: () => Promise<void>;
}

export async function openArchive({ config, secret, fetchApi, log, collect, link }: ArchiveOptions): Promise<Archive> {
  const driver = link ? 'link' : config.databaseUrl ? 'postgres' : 'pglite';
  const sealer = createKeySealer(secret);
  let collector: Collector | undefined;
  let lease: Lease | undefined;
  let db: Db | undefined;
  let opening: Promise<Db> | undefined;
  let stopped = false;
  const listeners: ((db: Db) => void)[] = [];
  const startCollecting = (store: Db) => {
    const start = (): Collector => startCollector({ db: store, fetchApi, sealer, budgetPerMinute: config.archiveBudget, intervalMs: config.archiveIntervalMs, fullReadMs: config.archiveFullReadMs, log });
    if (!collect || stopped) return;
    if (driver === 'pglite') collector = start();
    if (driver === 'postgres' && config.databaseUrl) lease = collectWhileHoldingLock({ databaseUrl: config.databaseUrl, retryMs: config.archiveLockRetryMs, start, log });
  };
  const opened = (store: Db) => {
    if (db) return;
    db = store;
    startCollecting(store);
    for (const listener of listeners.splice(0)) listener(store);
  };
  // A worker's link counts as open once the primary's store is (asked now, then every few seconds until it is).
  const linked = link ? linkedStore(link.origin, link.token) : undefined;
  const seeIfOpen = async (): Promise<Db | undefined> => {
    if (!linked || db) return db;
    if (await linked.isOpen().catch(() => false)) opened(linked);
    return db;
  };
  const watchLink = () => {
    if (stopped || db) return;
    setTimeout(() => void seeIfOpen().then(watchLink), LINK_CHECK_MS).unref();
  };
  const open = (): Promise<Db> => {
    opening ??= (async () => {
      const store = linked ?? (await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
      opened(store);
      return store;
    })();
    return opening;
  };
  // Opened now: a server, or a folder that already holds a store (its collector resumes); a worker asks the primary.
  if (linked) {
    await seeIfOpen();
    watchLink();
  } else if (driver === 'postgres' || existsSync(path.resolve(config.dataDir, STORE_DIR))) await open();

  let lent: { origin: string; close: () => Promise<void> } | undefined;
  const token = randomBytes(24).toString('base64url');
  const current = () => collector ?? lease?.collector();
  return {
    sealer,
    driver,
    db: open,
    opened: () => db,
    openedAnywhere: seeIfOpen,
    onOpen(listener) {
      if (db) listener(db);
      else listeners.push(listener);
    },
    isCollecting: () => current() !== undefined,
    collectorRequests: () => current()?.requests() ?? 0,
    wake: () => current()?.wake(),
    async lend() {
      lent ??= await serveStoreLink(open, token, () => db !== undefined);
      return { origin: lent.origin, token };
    },
    async stop() {
      stopped = true;
      // A store still opening is let finish, then closed with the rest.
      await opening?.catch(() => undefined);
      await lease?.stop();
      await collector?.stop();
      await lent?.close();
      await db?.close();
    },
  };
}
