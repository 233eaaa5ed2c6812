import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../server/lib/clock';
import { startStoreUpkeep } from '../../../server/collector/store-upkeep';
import type { Queryable } from '../../../server/store/db';
import { RECORD_TABLES } from '../../../server/store/upkeep';

// PGlite's upkeep on a simulated clock: when it vacuums the record, and that a failure is told and waited out.

const MINUTE = 60_000;

/** A clock moved by hand: waits end when it passes their deadline, or when their signal aborts. */
function manualClock(): Clock & { advance: (ms: number) => Promise<void> } {
  let now = 0;
  const waits: { until: number; resolve: () => void }[] = [];
  const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  return {
    now: () => now,
    wait: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) {
          resolve();
          return;
        }
        waits.push({ until: now + ms, resolve });
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        await settle();
        const next = waits.filter((w) => w.until <= end).sort((a, b) => a.until - b.until)[0];
        if (!next) break;
        waits.splice(waits.indexOf(next), 1);
        now = Math.max(now, next.until);
        next.resolve();
      }
      now = end;
      await settle();
    },
  };
}

/**
 * A store that notes when each upkeep statement came (in simulated minutes), and fails while `failing` says so.
 * Its write-ahead log moves between any two questions unless `written.still` says nothing is being written.
 */
function notingStore(
  clock: Clock,
  failing: { now: boolean } = { now: false },
  written: { still: boolean } = { still: false },
): Queryable & { at: number[]; statements: string[] } {
  const at: number[] = [];
  const statements: string[] = [];
  let lsn = 0;
  return {
    at,
    statements,
    query(text: string) {
      if (failing.now) return Promise.reject(new Error('the store is down'));
      if (text.includes('pg_current_wal_lsn')) {
        if (!written.still) lsn += 1;
        return Promise.resolve({ rows: [{ lsn: `0/${lsn}` }] as never[] });
      }
      at.push(clock.now() / MINUTE);
      statements.push(text);
      return Promise.resolve({ rows: [] as never[] });
    },
  };
}

/** The minute each run began (its statements all come at one simulated minute; runs are minutes apart). */
const runs = (at: readonly number[]) => [...new Set(at)];

describe('the embedded store’s upkeep', () => {
  it('vacuums and analyzes each table of the record five minutes after the store opens, then every hour', async () => {
    const clock = manualClock();
    const db = notingStore(clock);
    const upkeep = startStoreUpkeep({ db, clock, log: () => undefined });
    await clock.advance(3 * 60 * MINUTE);
    await upkeep.stop();
    expect(db.statements.slice(0, 2 * RECORD_TABLES.length)).toEqual(RECORD_TABLES.flatMap((table) => [`VACUUM ${table}`, `ANALYZE ${table}`]));
    expect(RECORD_TABLES).toEqual(expect.arrayContaining(['operations', 'operation_transitions']));
    expect(db.statements).toHaveLength(3 * 2 * RECORD_TABLES.length);
    expect(runs(db.at)).toEqual([5, 65, 125]);
  });

  it('skips a run when nothing was written to the store since the last one', async () => {
    const clock = manualClock();
    const written = { still: false };
    const db = notingStore(clock, { now: false }, written);
    const upkeep = startStoreUpkeep({ db, clock, log: () => undefined });
    await clock.advance(6 * MINUTE);
    written.still = true;
    await clock.advance(120 * MINUTE);
    written.still = false;
    await clock.advance(60 * MINUTE);
    await upkeep.stop();
    // At 5; at 65 and 125 the log had not moved since the run at 5 ended; at 185 it had.
    expect(runs(db.at)).toEqual([5, 185]);
  });

  it('comes at once when a backfill ends, and no sooner than ten minutes after the previous run', async () => {
    const clock = manualClock();
    const db = notingStore(clock);
    const upkeep = startStoreUpkeep({ db, clock, log: () => undefined });
    await clock.advance(2 * MINUTE);
    upkeep.wake();
    await clock.advance(1 * MINUTE);
    upkeep.wake();
    await clock.advance(20 * MINUTE);
    await upkeep.stop();
    // Woken at 2 (the first run, earlier than 5), again at 3: held until 12; then the hour from there.
    expect(runs(db.at)).toEqual([2, 12]);
  });

  it('tells a failed run once and tries again at the next hour', async () => {
    const clock = manualClock();
    const failing = { now: true };
    const db = notingStore(clock, failing);
    const lines: string[] = [];
    const upkeep = startStoreUpkeep({ db, clock, log: (line) => lines.push(line) });
    await clock.advance(6 * MINUTE);
    failing.now = false;
    await clock.advance(60 * MINUTE);
    await upkeep.stop();
    expect(lines[0]).toBe('Store upkeep: could not vacuum the record (the store is down); trying again in 60 min');
    expect(runs(db.at)).toEqual([65]);
    expect(lines[1]).toMatch(/^Store upkeep: the record vacuumed and analyzed in \d+\.\d s$/);
  });
});
