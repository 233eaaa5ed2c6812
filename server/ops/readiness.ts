// /readyz (docs/operations.md, "Readiness"): whether a balancer should send this instance requests, with each
// check named. Not ready while shutting down (first of all: process/shutdown.ts's drain), or while the store
// does not answer within READY_STORE_DEADLINE_MS or lacks a migration this code needs; the embedded store not
// opened yet is ready (it opens when first needed) and says so. The collector (collecting here, standby while
// another instance holds its lock, its lag) and the outbox (what waits, since when) are reported, and never make
// the instance unready: another instance could do nothing better about a slow API or a receiver that is down.
import { appliedVersion, loadMigrations } from '../store/migrations';
import { outboxBacklog, type OutboxBacklog } from '../store/deliveries';
import type { Db } from '../store/db';
import type { Store } from '../store/store';
import type { CollectorWatch } from './collector-watch';

/** How long the store may take to answer readiness's query before the instance counts as not ready. */
export const READY_STORE_DEADLINE_MS = 1_500;
/** The collector has been failing to read the API for this long: its check says "lagging". */
export const COLLECTOR_LAG_WARN_MS = 5 * 60_000;

export type StoreCheck =
  | { status: 'ok'; kind: Store['kind']; migration: number; took_ms: number }
  | { status: 'not opened'; kind: 'pglite'; detail: string }
  | { status: 'unavailable' | 'migrations missing' | 'not checked'; kind: Store['kind']; detail: string };

export interface CollectorCheck {
  status: 'collecting' | 'lagging' | 'standby' | 'waiting for the store';
  /** Seconds since the collector last read the API successfully (null: not yet, or not collecting here). */
  lag_s: number | null;
  last_success_at: string | null;
}

export type OutboxCheck = { status: 'ok'; pending: number; oldest_pending_s: number | null } | { status: 'unknown' | 'not checked'; detail: string };

export interface Readiness {
  status: 'ready' | 'not ready' | 'draining';
  checks: { store: StoreCheck; collector: CollectorCheck; outbox: OutboxCheck };
}

export interface ReadinessOptions {
  store: Pick<Store, 'kind' | 'opened' | 'failing'>;
  /** Whether this instance collects now (collector/leader.ts). */
  leading: () => boolean;
  collector: Pick<CollectorWatch, 'lastSuccessAt' | 'failingSince'>;
  draining: () => boolean;
  now?: () => number;
  deadlineMs?: number;
}

class Late extends Error {}

/** `work`, or Late past `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Late()), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createReadiness({
  store,
  leading,
  collector,
  draining,
  now = Date.now,
  deadlineMs = READY_STORE_DEADLINE_MS,
}: ReadinessOptions): () => Promise<Readiness> {
  let latest: Promise<number> | undefined;
  const latestMigration = () => (latest ??= loadMigrations().then((all) => all.at(-1)?.version ?? 0));
  // One query of each at a time, past its deadline too: a balancer asking every second while the store hangs ties
  // up one of the pool's connections, not one per question.
  let probing: Promise<number> | undefined;
  const applied = (db: Db) => (probing ??= appliedVersion(db).finally(() => (probing = undefined)));
  let reading: Promise<OutboxBacklog> | undefined;
  const backlog = (db: Db) => (reading ??= outboxBacklog(db).finally(() => (reading = undefined)));

  const checkStore = async (db: Db | undefined): Promise<StoreCheck> => {
    if (!db) {
      if (store.kind === 'pglite') return { status: 'not opened', kind: 'pglite', detail: 'The embedded store opens when something first needs it.' };
      return {
        status: 'unavailable',
        kind: store.kind,
        detail: `The store has not opened yet (tried ${store.failing()} ${store.failing() === 1 ? 'time' : 'times'}); it is tried again every few seconds.`,
      };
    }
    const started = performance.now();
    try {
      const [has, wanted] = await within(deadlineMs, Promise.all([applied(db), latestMigration()]));
      const took = Math.round(performance.now() - started);
      if (has < wanted)
        return { status: 'migrations missing', kind: store.kind, detail: `The store has migrations up to ${has}; this server needs ${wanted}.` };
      return { status: 'ok', kind: store.kind, migration: has, took_ms: took };
    } catch (error) {
      const detail = error instanceof Late ? `The store did not answer within ${deadlineMs} ms.` : describe(error);
      return { status: 'unavailable', kind: store.kind, detail };
    }
  };

  const checkCollector = (): CollectorCheck => {
    const success = collector.lastSuccessAt();
    const failing = collector.failingSince();
    const lag = success === undefined ? null : Math.round((now() - success) / 1_000);
    const last = success === undefined ? null : new Date(success).toISOString();
    if (leading()) {
      // Lagging only while it tries and fails: with nothing to read (no kept key) the time since its last read means nothing.
      const lagging = failing !== undefined && now() - (success ?? failing) > COLLECTOR_LAG_WARN_MS;
      return { status: lagging ? 'lagging' : 'collecting', lag_s: lag, last_success_at: last };
    }
    if (!store.opened()) return { status: 'waiting for the store', lag_s: null, last_success_at: last };
    return { status: 'standby', lag_s: null, last_success_at: last };
  };

  const checkOutbox = async (db: Db | undefined, storeOk: boolean): Promise<OutboxCheck> => {
    if (!db) return store.kind === 'pglite' ? { status: 'ok', pending: 0, oldest_pending_s: null } : { status: 'unknown', detail: 'The store is unavailable.' };
    if (!storeOk) return { status: 'unknown', detail: 'The store is unavailable.' };
    try {
      const waiting = await within(deadlineMs, backlog(db));
      return {
        status: 'ok',
        pending: waiting.pending,
        oldest_pending_s: waiting.oldestQueuedAt ? Math.max(0, Math.round((now() - waiting.oldestQueuedAt.getTime()) / 1_000)) : null,
      };
    } catch (error) {
      return { status: 'unknown', detail: error instanceof Late ? `The store did not answer within ${deadlineMs} ms.` : describe(error) };
    }
  };

  // Questions asked together get one answer.
  let running: Promise<Readiness> | undefined;
  const check = async (): Promise<Readiness> => {
    const db = store.opened();
    const storeCheck = await checkStore(db);
    const storeOk = storeCheck.status === 'ok' || storeCheck.status === 'not opened';
    const outbox = await checkOutbox(db, storeCheck.status === 'ok');
    return { status: draining() ? 'draining' : storeOk ? 'ready' : 'not ready', checks: { store: storeCheck, collector: checkCollector(), outbox } };
  };
  return async () => {
    if (draining()) {
      // Shutdown first: the answer must not wait on a store that may be slow.
      const detail = 'This instance is shutting down.';
      return {
        status: 'draining',
        checks: { store: { status: 'not checked', kind: store.kind, detail }, collector: checkCollector(), outbox: { status: 'not checked', detail } },
      };
    }
    running ??= check().finally(() => (running = undefined));
    return running;
  };
}
