// The embedded store's upkeep loop (server/store/upkeep.ts), run beside the collector in PGlite's one process
// (a Postgres server's autovacuum does the same by itself): a while after the store opens, after a backfill
// has written a project's history (no sooner than `spacingMs` after the previous one), and every `everyMs`
// otherwise, which keeps up with the collector's re-reads writing the newest month over. Each run holds the
// store for a few seconds at most at a million operations (docs/benchmarks.md, "The whole record at scale").
import type { Log } from '../log/logger';
import type { Queryable } from '../store/db';
import { vacuumRecord, writtenUpTo } from '../store/upkeep';
import { realClock, type Clock } from '../lib/clock';

export const UPKEEP_FIRST_MS = 5 * 60_000;
export const UPKEEP_EVERY_MS = 60 * 60_000;
export const UPKEEP_SPACING_MS = 10 * 60_000;

export interface StoreUpkeepOptions {
  db: Queryable;
  log: Log;
  clock?: Clock;
  firstMs?: number;
  everyMs?: number;
  spacingMs?: number;
  /** False on a Postgres server, whose autovacuum does it: only `prune` runs. */
  vacuum?: boolean;
  /** Team sign-in: the audit trail's retention (server/auth/audit.ts), each run. */
  prune?: () => Promise<number>;
}

export interface StoreUpkeep {
  /** Many rows were written (a backfill ended): the next run comes sooner. */
  wake: () => void;
  /** Stops the loop; resolves once a run under way has ended. */
  stop: () => Promise<void>;
}

export function startStoreUpkeep({
  db,
  log,
  clock = realClock,
  firstMs = UPKEEP_FIRST_MS,
  everyMs = UPKEEP_EVERY_MS,
  spacingMs = UPKEEP_SPACING_MS,
  vacuum = true,
  prune,
}: StoreUpkeepOptions): StoreUpkeep {
  const stopped = new AbortController();
  let woken = new AbortController();
  // Set by wake(), from outside the loop.
  const asked = { sooner: false };
  const loop = (async () => {
    // As if the last run were one interval before the first one is due.
    let last = clock.now() - everyMs + firstMs;
    // Where the store's log ended after the last run: unmoved, nothing was written since, and the run is skipped.
    let vacuumedAt: string | undefined;
    while (!stopped.signal.aborted) {
      const due = asked.sooner ? Math.min(last + everyMs, Math.max(last + spacingMs, clock.now())) : last + everyMs;
      if (clock.now() < due) {
        woken = new AbortController();
        await clock.wait(due - clock.now(), AbortSignal.any([woken.signal, stopped.signal]));
        continue;
      }
      asked.sooner = false;
      last = clock.now();
      const started = performance.now();
      if (prune) {
        try {
          const pruned = await prune();
          if (pruned > 0) log(`Store upkeep: ${pruned} audit rows past their retention removed`, { event: 'store.audit_pruned', pruned });
        } catch (error) {
          log(`Store upkeep: could not prune the audit trail (${error instanceof Error ? error.message : String(error)})`, {
            event: 'store.audit_prune_failed',
            level: 'warn',
          });
        }
      }
      if (!vacuum) continue;
      try {
        if (vacuumedAt !== undefined && (await writtenUpTo(db)) === vacuumedAt) continue;
        await vacuumRecord(db);
        vacuumedAt = await writtenUpTo(db);
        log(`Store upkeep: the record vacuumed and analyzed in ${((performance.now() - started) / 1_000).toFixed(1)} s`, {
          event: 'store.upkeep',
          durationMs: Math.round(performance.now() - started),
        });
      } catch (error) {
        log(`Store upkeep: could not vacuum the record (${error instanceof Error ? error.message : String(error)}); trying again in ${everyMs / 60_000} min`, {
          event: 'store.upkeep_failed',
          level: 'warn',
        });
      }
    }
  })();
  return {
    wake: () => {
      asked.sooner = true;
      woken.abort();
    },
    async stop() {
      stopped.abort();
      await loop;
    },
  };
}
