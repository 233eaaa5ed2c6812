// The one decision of where the background loops run, the collector's and the notifications' alike (they read
// and write the same tables, and one of each per deployment is enough): in PGlite's one process once its store
// is open; on a Postgres server, in the instance holding the collector's advisory lock (lease.ts), once that
// instance's store is open. Every other instance serves the archive's and the notifications' routes over the
// same store.
import type { Log } from '../log/logger';
import type { Db } from '../store/db';
import type { Store } from '../store/store';
import type { Collector } from '../collector/collector';
import { workWhileHoldingLock, type Lease } from './lease';

/** What the leader runs: the collector, and what runs beside it. */
export interface Leading {
  collector: Collector;
  stop: () => Promise<void>;
}

export interface Leader {
  /** This instance collects (PGlite: once its store is open; Postgres: while it holds the lock). */
  isLeading: () => boolean;
  /** Tells the collector, where it runs here, that a source was kept or removed; resolves once it has looked (Collector.wake). */
  wake: () => Promise<void>;
  /** API requests this instance's collector has sent (the bench). */
  collectorRequests: () => number;
  stop: () => Promise<void>;
}

export interface LeaderOptions {
  store: Pick<Store, 'kind' | 'onOpen'>;
  databaseUrl: string | undefined;
  lockRetryMs: number;
  start: (db: Db) => Leading;
  log: Log;
}

export function leadWhereThisInstanceMay({ store, databaseUrl, lockRetryMs, start, log }: LeaderOptions): Leader {
  let leading: Leading | undefined;
  let lease: Lease<Leading> | undefined;
  let stopped = false;
  store.onOpen((db) => {
    if (stopped) return;
    if (store.kind === 'pglite' || !databaseUrl) leading = start(db);
    else lease = workWhileHoldingLock({ databaseUrl, retryMs: lockRetryMs, start: () => start(db), log });
  });
  const current = () => leading ?? lease?.held();
  return {
    isLeading: () => current() !== undefined,
    wake: () => current()?.collector.wake() ?? Promise.resolve(),
    collectorRequests: () => current()?.collector.requests() ?? 0,
    async stop() {
      stopped = true;
      await lease?.stop();
      await leading?.stop();
    },
  };
}
