// This instance's view of the change feed (docs/live.md, "How a change travels"): it reads the store's
// live_changes after the last sequence it has seen and hands each batch to the streams open here. It reads
// when a write of this process has committed (PGlite's one process: in-process), when another instance's
// NOTIFY arrives (Postgres, on a connection of the store's own that listens again after a reconnect, and
// then reads from the last sequence: what was announced meanwhile was lost), and every `pollMs` while a
// stream is open, should a NOTIFY be lost some other way.
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import type { Db } from '../store/db';
import { changesAfter, latestChange, LIVE_CHANNEL, onFeedWritten, type ChangeRow, type ChangesAfter } from '../store/live-changes';
import type { Store } from '../store/store';

/** The most a reconnect is replayed; past it the page is told `reset` and reads its screens again. */
export const REPLAY_LIMIT = 500;
/** How often the feed is read while a stream is open, beside the announcements. */
export const FEED_POLL_MS = 5_000;

export type FeedBatch = { kind: 'changes'; rows: ChangeRow[] } | { kind: 'reset'; last: number };

export interface LiveFeed {
  /** The store, opened for a stream (its first sequence and replay need it). */
  db: () => Promise<Db>;
  /** The newest sequence this instance has read (read now if it has not read yet). */
  last: () => Promise<number>;
  /** What came after `after` (a reconnect's replay), or reset. */
  replay: (after: number) => Promise<ChangesAfter>;
  /** Each batch read from now on; returns the unsubscription. */
  subscribe: (listener: (batch: FeedBatch) => void) => () => void;
  stop: () => Promise<void>;
}

export function createLiveFeed({ store, log, pollMs = FEED_POLL_MS }: { store: Store; log: Log; pollMs?: number }): LiveFeed {
  const listeners = new Set<(batch: FeedBatch) => void>();
  let last: number | undefined;
  let reading: Promise<void> | undefined;
  // Set by a wake during a read (outside the loop that reads it).
  const asked = { again: false };
  const wokenAgain = () => asked.again;
  const stopped = { yes: false };
  let stopListening: (() => Promise<void>) | undefined;
  // Said once when reads start failing, and once when they work again (server/log/outage.ts).
  const unreadable = createOutage(log, { event: 'live.feed_unreadable', over: 'Live: the change feed is read again', failed: ['failed read', 'failed reads'] });

  const readOnce = async (db: Db) => {
    if (last === undefined) {
      last = await latestChange(db);
      return;
    }
    const read = await changesAfter(db, last, REPLAY_LIMIT);
    last = read.last;
    const batch: FeedBatch = read.kind === 'reset' ? read : { kind: 'changes', rows: read.rows };
    if (batch.kind === 'changes' && batch.rows.length === 0) return;
    for (const listener of [...listeners]) listener(batch);
  };

  /** One read at a time; a wake during a read reads once more after it. */
  const read = (db: Db): Promise<void> => {
    if (reading) {
      asked.again = true;
      return reading;
    }
    reading = (async () => {
      do {
        asked.again = false;
        try {
          await readOnce(db);
          unreadable.recovered();
        } catch (error) {
          unreadable.failed(`Live: could not read the change feed (${error instanceof Error ? error.message : String(error)}); trying again`);
        }
      } while (wokenAgain() && !stopped.yes);
    })().finally(() => (reading = undefined));
    return reading;
  };

  let opened: Db | undefined;
  const offWritten = onFeedWritten(() => {
    if (opened) void read(opened);
  });
  store.onOpen((db) => {
    if (stopped.yes) return;
    opened = db;
    void read(db);
    stopListening = db.listen?.(LIVE_CHANNEL, {
      onMessage: () => void read(db),
      // Listening (again): what was announced while it did not is read now, from the last sequence.
      onListening: () => void read(db),
    });
  });
  const timer = setInterval(() => {
    if (opened && listeners.size > 0) void read(opened);
  }, pollMs);
  timer.unref();

  return {
    db: () => store.db(),
    async last() {
      const db = await store.db();
      if (last === undefined) await read(db);
      return last ?? (await latestChange(db));
    },
    replay: async (after) => changesAfter(await store.db(), after, REPLAY_LIMIT),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      stopped.yes = true;
      clearInterval(timer);
      offWritten();
      listeners.clear();
      await stopListening?.();
      await reading;
    },
  };
}
