// The collector (one per deployment, server/lead/leader.ts decides where): reads every enabled kept source into the
// store, each in its own loop with its own budget (source-reader.ts). It looks for added, removed and
// disabled sources every `refreshMs`, or at once when woken.
import type { ZodMiniType } from 'zod/mini';
import { CONFIG_DEFAULTS } from '../config';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import type { ApiReader } from '../proxy/api-reader';
import type { Seal } from '../seal/seal';
import type { Db } from '../store';
import { enabledSources, recordSourceError } from '../store/sources';
import { realClock, type Clock } from '../lib/clock';
import { createPacer, type Pacer } from './pacer';
import { readSource } from './source-reader';

const DEFAULT_REFRESH_MS = 2_000;

export const KEY_UNREADABLE = 'The kept key could not be opened (SESSION_SECRET changed since it was kept). Keep history again.';

export interface CollectorOptions {
  db: Db;
  read: ApiReader;
  seal: Seal;
  budgetPerMinute?: number;
  intervalMs?: number;
  fullReadMs?: number;
  refreshMs?: number;
  clock?: Clock;
  log: Log;
  /** A project's whole history was read for the first time (the store's upkeep comes sooner: store-upkeep.ts). */
  onBackfilled?: () => void;
}

export interface Collector {
  /**
   * Looks for new or removed sources now; resolves once it has, and the readers of removed ones have stopped
   * (a page one was writing is in the store by then, never after).
   */
  wake: () => Promise<void>;
  /** Stops every source's reading; resolves once they have. */
  stop: () => Promise<void>;
  /** API requests sent so far, all sources (the bench). */
  requests: () => number;
}

export function startCollector(options: CollectorOptions): Collector {
  const { db, clock = realClock, log } = options;
  const budgetPerMinute = options.budgetPerMinute ?? CONFIG_DEFAULTS.archiveBudget;
  const stopped = new AbortController();
  const running = new Map<string, { abort: AbortController; done: Promise<void>; pacer: Pacer }>();
  let finished = 0;
  let wake: () => void = () => undefined;
  // The wakes not yet answered: each by the first look at the sources that began after it.
  const woken: (() => void)[] = [];

  /** Looks at the sources; `dropped` is given the removed sources' readers' ends. */
  const refresh = async (dropped: Promise<void>[]) => {
    const sources = await enabledSources(db);
    const enabled = new Set(sources.map((s) => s.id));
    for (const [id, source] of running) {
      if (!enabled.has(id)) {
        source.abort.abort();
        dropped.push(source.done);
        running.delete(id);
      }
    }
    for (const source of sources) {
      if (running.has(source.id) || stopped.signal.aborted) continue;
      const key = options.seal.open('kept-key', source.sealed_key);
      if (key === null) {
        await recordSourceError(db, source.id, KEY_UNREADABLE, new Date(clock.now()), true);
        continue;
      }
      const abort = new AbortController();
      const signal = AbortSignal.any([abort.signal, stopped.signal]);
      const pacer = createPacer(budgetPerMinute, clock);
      const reader = {
        db,
        sourceId: source.id,
        read: <T>(path: string, schema: ZodMiniType<T>, readSignal: AbortSignal) => options.read(key, path, schema, { signal: readSignal }),
        pacer,
        clock,
        budgetPerMinute,
        intervalMs: options.intervalMs ?? CONFIG_DEFAULTS.archiveIntervalMs,
        fullReadMs: options.fullReadMs ?? CONFIG_DEFAULTS.archiveFullReadMs,
        log,
        ...(options.onBackfilled ? { onBackfilled: options.onBackfilled } : {}),
      };
      const done = readSource(reader, signal)
        .catch((error: unknown) =>
          log(`Archive: source ${source.id} stopped: ${error instanceof Error ? error.message : String(error)}`, {
            event: 'archive.source_stopped',
            level: 'error',
            source: source.id,
          }),
        )
        .finally(() => {
          finished += pacer.count();
          if (running.get(source.id)?.done === done) running.delete(source.id);
        });
      running.set(source.id, { abort, done, pacer });
    }
  };

  // The sources are read every refreshMs: a store that does not answer is said once, and once when it does.
  const unreadable = createOutage(log, { event: 'archive.sources_unreadable', over: 'Archive: the sources are read again' });
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      const answering = woken.splice(0);
      const dropped: Promise<void>[] = [];
      try {
        await refresh(dropped);
        unreadable.recovered();
      } catch (error) {
        unreadable.failed(
          `Archive: could not read the sources (${error instanceof Error ? error.message : String(error)}); trying again every ${(options.refreshMs ?? DEFAULT_REFRESH_MS) / 1_000} s`,
        );
      }
      // A reader's end is never a rejection (readSource's errors are logged above).
      await Promise.all(dropped);
      for (const resolve of answering) resolve();
      const again = new AbortController();
      wake = () => again.abort();
      // Woken while it looked: it looks once more at once.
      if (woken.length > 0) continue;
      await clock.wait(options.refreshMs ?? DEFAULT_REFRESH_MS, AbortSignal.any([again.signal, stopped.signal]));
    }
    for (const resolve of woken.splice(0)) resolve();
  })();

  return {
    wake: () =>
      new Promise<void>((resolve) => {
        if (stopped.signal.aborted) {
          resolve();
          return;
        }
        woken.push(resolve);
        wake();
      }),
    requests: () => finished + [...running.values()].reduce((sum, source) => sum + source.pacer.count(), 0),
    async stop() {
      stopped.abort();
      await loop;
      await Promise.all([...running.values()].map((source) => source.done));
    },
  };
}
