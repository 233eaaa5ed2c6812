// Exactly one collector per DATABASE_URL: the instance holding a Postgres advisory lock, on a connection
// of its own, collects (leader.ts); the others try to take it every `retryMs`. A holder that dies loses
// its connection and with it the lock, so another takes over within one retry interval.
import pg from 'pg';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import { tryCollectorLock } from '../store/locks';
import { realClock, type Clock } from './pacer';

/** What runs while the lock is held. */
export interface Work {
  stop: () => Promise<void>;
}

export const DEFAULT_LEASE_RETRY_MS = 15_000;

export interface Lease<W extends Work> {
  /** What runs while this instance holds the lock. */
  held: () => W | undefined;
  /** Stops the work (if it ran) and lets the lock go. */
  stop: () => Promise<void>;
}

export function workWhileHoldingLock<W extends Work>({ databaseUrl, retryMs = DEFAULT_LEASE_RETRY_MS, start, log, clock = realClock }: { databaseUrl: string; retryMs?: number; start: () => W; log: Log; clock?: Clock }): Lease<W> {
  const stopped = new AbortController();
  const unreachable = createOutage(log, { event: 'archive.lock_unreachable', over: 'Archive: the collector lock\'s connection works again' });
  let collector: W | undefined;
  let client: pg.Client | undefined;
  // A function, not the property: each await may have stopped it.
  const isStopped = () => stopped.signal.aborted;

  const holdWhileConnected = async (connection: pg.Client): Promise<void> => {
    let onLost: () => void = () => undefined;
    const lost = new Promise<void>((resolve) => {
      onLost = () => resolve();
      connection.once('error', onLost);
      connection.once('end', onLost);
      stopped.signal.addEventListener('abort', onLost, { once: true });
    });
    // The stop signal lives as long as the lease: a listener left on it per lost connection would keep each one.
    void lost.then(() => stopped.signal.removeEventListener('abort', onLost));
    for (;;) {
      if (isStopped()) return;
      if (await tryCollectorLock({ query: async (text, params) => ({ rows: (await connection.query<never>(text, params ? [...params] : undefined)).rows }) })) break;
      const tried = await Promise.race([lost.then(() => 'lost' as const), clock.wait(retryMs, stopped.signal).then(() => 'again' as const)]);
      if (tried === 'lost') return;
    }
    if (isStopped()) return;
    log('Archive: this instance holds the collector lock and collects', { event: 'archive.leading' });
    collector = start();
    await lost;
    const was = collector;
    collector = undefined;
    await was.stop();
    if (!isStopped()) log('Archive: lost the collector lock (its connection ended); trying to take it again', { event: 'archive.lock_lost', level: 'warn' });
  };

  const loop = (async () => {
    while (!isStopped()) {
      const connection = new pg.Client({ connectionString: databaseUrl });
      connection.on('error', () => undefined);
      client = connection;
      try {
        await connection.connect();
        unreachable.recovered();
        await holdWhileConnected(connection);
      } catch (error) {
        if (!isStopped()) unreachable.failed(`Archive: the collector lock's connection failed (${error instanceof Error ? error.message : String(error)}); trying again every ${retryMs / 1_000} s`);
      }
      await connection.end().catch(() => undefined);
      if (!isStopped()) await clock.wait(retryMs, stopped.signal);
    }
  })();

  return {
    held: () => collector,
    async stop() {
      stopped.abort();
      await client?.end().catch(() => undefined);
      await loop;
    },
  };
}
