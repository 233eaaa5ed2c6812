// Exactly one collector per DATABASE_URL (docs/archive.md, "One collector per deployment"): the instance
// holding a Postgres advisory lock, on a connection of its own, collects (leader.ts); the others try to take it
// every `retryMs`. A lock is only as good as its connection, and a connection can go silent without a word (a
// black-holed socket): so the holder beats on it every HEARTBEAT_MS, each beat a query with a deadline that
// also proves the lock is still this session's. On any error, a missed beat or the connection's end it stops
// collecting at once (before its next read of the API) and destroys that connection. Postgres is asked to
// notice a silent client too (keepalives, idle_session_timeout), so the lock is freed within seconds when
// an instance vanishes; and a new holder waits until the last holder's last beat is SILENT_STOP_MS old, by
// which time a holder that went silent has stopped: the two never read the API together.
import { CONFIG_DEFAULTS } from '../config';
import { realClock, type Clock } from '../lib/clock';
import { DeadlineExceeded } from '../lib/deadline';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import { openLockConnection, type LockConnection } from '../store/lock-connection';
import { beatCollectorLease, clearCollectorLease, endSessionWhenSilent, takeoverWaitMs, tryCollectorLock } from '../store/locks';

/** What runs while the lock is held. */
export interface Work {
  stop: () => Promise<void>;
}

/** How often the holder beats on the lock's connection. */
export const HEARTBEAT_MS = 2_000;
/** How long a beat (or any query on the lock's connection) may take: past it, the holder steps down. */
export const HEARTBEAT_DEADLINE_MS = 2_000;
/** After its last answered beat, a holder whose connection went silent has stopped within this (with a second for a busy event loop). */
export const SILENT_STOP_MS = HEARTBEAT_MS + HEARTBEAT_DEADLINE_MS + 1_000;
/** Postgres ends the holder's session once no beat came for this long (the lock is then free). */
const SERVER_SILENCE_MS = 3 * HEARTBEAT_MS + HEARTBEAT_DEADLINE_MS;

export interface Lease<W extends Work> {
  /** What runs while this instance holds the lock. */
  held: () => W | undefined;
  /** Stops the work (if it ran) and lets the lock go. */
  stop: () => Promise<void>;
}

export interface LeaseOptions<W extends Work> {
  databaseUrl: string;
  retryMs?: number;
  start: () => W;
  log: Log;
  clock?: Clock;
}

export function workWhileHoldingLock<W extends Work>({
  databaseUrl,
  retryMs = CONFIG_DEFAULTS.archiveLockRetryMs,
  start,
  log,
  clock = realClock,
}: LeaseOptions<W>): Lease<W> {
  const stopped = new AbortController();
  const unreachable = createOutage(log, { event: 'archive.lock_unreachable', over: "Archive: the collector lock's connection works again" });
  let collector: W | undefined;
  let client: LockConnection | undefined;
  // A function, not the property: each await may have stopped it.
  const isStopped = () => stopped.signal.aborted;

  /** Holds the lock on `connection` for as long as it beats; resolves once the work (if it ran) has stopped. */
  const holdWhileConnected = async (on: LockConnection): Promise<void> => {
    let work: W | undefined;
    let stopping: Promise<void> = Promise.resolve();
    let why: string | undefined;
    let held = false;
    const over = new AbortController();
    const isOver = () => over.signal.aborted;
    // Synchronous from the moment the loss is known: the collector's next read checks the signal this aborts.
    const stepDown = (reason: string) => {
      why ??= reason;
      over.abort();
      const was = work;
      work = undefined;
      collector = undefined;
      if (was) stopping = was.stop();
    };
    const onStop = () => stepDown('stopping');
    const stopListening = on.onLost(stepDown);
    stopped.signal.addEventListener('abort', onStop, { once: true });
    try {
      for (;;) {
        if (isOver()) return;
        if ((held = await tryCollectorLock(on))) break;
        await clock.wait(retryMs, over.signal);
      }
      // Read before this holder's first beat overwrites it.
      const waitMs = await takeoverWaitMs(on, SILENT_STOP_MS);
      await endSessionWhenSilent(on, SERVER_SILENCE_MS);
      const startAt = clock.now() + waitMs;
      if (waitMs > 0)
        log(`Archive: this instance took the collector lock; it collects in ${Math.ceil(waitMs / 1_000)} s, once the previous holder has surely stopped`, {
          event: 'archive.lock_taken',
          wait_ms: waitMs,
        });
      for (;;) {
        if (isOver()) break;
        if (!(await beatCollectorLease(on))) {
          stepDown("the lock is no longer this connection's");
          break;
        }
        if (isOver()) break;
        if (!work && clock.now() >= startAt) {
          log('Archive: this instance holds the collector lock and collects', { event: 'archive.leading' });
          work = start();
          collector = work;
        }
        await clock.wait(work ? HEARTBEAT_MS : Math.min(HEARTBEAT_MS, Math.max(0, startAt - clock.now())), over.signal);
      }
      if (isStopped() && why === 'stopping') {
        // A clean stop: the work has stopped, so the next holder need not wait this one out.
        await stopping;
        await clearCollectorLease(on).catch(() => undefined);
      }
    } catch (error) {
      stepDown(
        error instanceof DeadlineExceeded
          ? `a query on its connection got no answer within ${HEARTBEAT_DEADLINE_MS / 1_000} s`
          : `a query on its connection failed (${error instanceof Error ? error.message : String(error)})`,
      );
    } finally {
      stopListening();
      stopped.signal.removeEventListener('abort', onStop);
      on.destroy();
      await stopping;
    }
    if (isStopped() || why === undefined) return;
    if (held)
      log(`Archive: stepped down from the collector lock: ${why}; the connection is destroyed and the lock taken again when it is free`, {
        event: 'archive.lock_lost',
        level: 'warn',
      });
    else
      unreachable.failed(`Archive: the collector lock's connection was lost while waiting for the lock: ${why}; connecting again every ${retryMs / 1_000} s`);
  };

  const loop = (async () => {
    while (!isStopped()) {
      let connection: LockConnection;
      try {
        connection = await openLockConnection(databaseUrl, HEARTBEAT_DEADLINE_MS, stopped.signal);
        client = connection;
        unreachable.recovered();
        // Stopped while it connected: nothing may start on it.
        if (isStopped()) break;
      } catch (error) {
        if (!isStopped())
          unreachable.failed(
            `Archive: the collector lock's connection failed (${error instanceof Error ? error.message : String(error)}); trying again every ${retryMs / 1_000} s`,
          );
        await clock.wait(retryMs, stopped.signal);
        continue;
      }
      await holdWhileConnected(connection);
      if (!isStopped()) await clock.wait(retryMs, stopped.signal);
    }
  })();

  return {
    held: () => collector,
    async stop() {
      stopped.abort();
      await loop;
      client?.destroy();
    },
  };
}
