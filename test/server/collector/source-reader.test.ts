import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../server/lib/clock';
import { createPacer } from '../../../server/collector/pacer';
import { readSource, STORE_PROBE_MS } from '../../../server/collector/source-reader';
import { createApiBackend } from '../../../server/proxy/api-backend';
import { createApiReader } from '../../../server/proxy/api-reader';
import { StoreUnavailableError, type Db } from '../../../server/store/db';
import { keepSource, sourceSummary } from '../../../server/store/sources';
import { openTestStore } from '../store/store-drivers';

// One kept source read while the console's store goes away and comes back (server/collector/source-reader.ts):
// the store's outage is not the API's, so nothing is read from the API while the store cannot take it, and the
// reading resumes within a probe of the store answering, not after the API's 30-second pause. The reader runs on
// a clock that jumps each wait at once, so minutes of its time pass in a moment of the test's.

const KEY = 'source-reader-key-000000000000000000';

/** A clock whose every wait passes at once, moving its time on by what was waited for (unless the wait was aborted). */
function jumpingClock(start: number): Clock {
  let now = start;
  return {
    now: () => now,
    wait: async (ms, signal) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (!signal.aborted) now += Math.max(0, ms);
    },
  };
}

describe('a source whose store goes away', () => {
  let store: Db;
  beforeAll(async () => {
    store = (await openTestStore('pglite')).db;
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  it('reads nothing from the API while the store is down, and reads again within a probe of its return', { timeout: 30_000 }, async () => {
    const clock = jumpingClock(Date.parse('2026-11-27T09:00:00Z'));
    let down: { since: number; failedAt?: number } | undefined;
    const gone = () => {
      if (!down) return;
      down.failedAt ??= clock.now();
      throw new StoreUnavailableError("The console's store is unavailable: the test stopped it.");
    };
    const db: Db = {
      query: (text, params) => (gone(), store.query(text, params)),
      transaction: (fn) => (gone(), store.transaction(fn)),
      close: () => Promise.resolve(),
    };
    const backend = createApiBackend({ simApiKey: KEY, simRateLimits: false });
    const read = createApiReader(backend.fetch);
    const reads: number[] = [];
    await keepSource(store, { id: 'src-1', fingerprint: 'fp-1', sealedKey: 'sealed', keyKind: 'personal', label: 'Demo', now: new Date(clock.now()) });
    const stop = new AbortController();
    const reading = readSource(
      {
        db,
        sourceId: 'src-1',
        read: (path, schema, signal) => {
          reads.push(clock.now());
          return read(KEY, path, schema, { signal });
        },
        pacer: createPacer(700, clock),
        clock,
        budgetPerMinute: 700,
        intervalMs: 5_000,
        fullReadMs: 60 * 60_000,
        log: () => undefined,
      },
      stop.signal,
    );
    const until = async (what: string, done: () => boolean | Promise<boolean>) => {
      // A limit for a reader that never gets there, not a measure: a machine running two CI runs took past 20 s.
      const deadline = performance.now() + 60_000;
      while (!(await done())) {
        if (performance.now() > deadline) throw new Error(`waited 20 s for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await until('the source to be listed', async () => ((await sourceSummary(store, 'src-1'))?.projects ?? 0) > 0);

    down = { since: clock.now() };
    // Two of the API's 30-second pauses of the reader's time, the store down throughout.
    await until('a minute of the store down', () => down?.failedAt !== undefined && clock.now() - down.failedAt > 60_000);
    const failedAt = down.failedAt ?? 0;
    expect(reads.filter((at) => at > failedAt)).toEqual([]);

    down = undefined;
    const back = clock.now();
    await until('a read after the store is back', () => reads.some((at) => at >= back));
    expect(reads.find((at) => at >= back)! - back).toBeLessThanOrEqual(STORE_PROBE_MS);
    stop.abort();
    await reading;
  });

  it('tells when each project’s whole history has been read the first time, and not for its re-reads', { timeout: 90_000 }, async () => {
    const clock = jumpingClock(Date.parse('2026-11-27T09:00:00Z'));
    const backend = createApiBackend({ simApiKey: KEY, simRateLimits: false });
    const read = createApiReader(backend.fetch);
    await keepSource(store, { id: 'src-2', fingerprint: 'fp-2', sealedKey: 'sealed', keyKind: 'personal', label: 'Demo', now: new Date(clock.now()) });
    const stop = new AbortController();
    let backfilled = 0;
    const reading = readSource(
      {
        db: store,
        sourceId: 'src-2',
        read: (path, schema, signal) => read(KEY, path, schema, { signal }),
        pacer: createPacer(700, clock),
        clock,
        budgetPerMinute: 700,
        intervalMs: 5_000,
        fullReadMs: 60_000,
        log: () => undefined,
        onBackfilled: () => backfilled++,
      },
      stop.signal,
    );
    // A limit for a reader that never gets there, not a measure: a machine running two CI runs took past 20 s.
    const deadline = performance.now() + 60_000;
    // Read to their ends, then five minutes of the reader's time: each project read whole again (every minute).
    let backfilledAt: number | undefined;
    while (backfilledAt === undefined || clock.now() < backfilledAt + 5 * 60_000) {
      if (performance.now() > deadline) throw new Error(`waited 60 s for the backfill (${String(backfilledAt)}) and five minutes of reading (${clock.now()})`);
      if (backfilledAt === undefined && (await sourceSummary(store, 'src-2'))?.backfilled) backfilledAt = clock.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    stop.abort();
    await reading;
    expect(backfilled).toBe((await sourceSummary(store, 'src-2'))?.projects);
  });
});
