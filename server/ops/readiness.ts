// /readyz (docs/operations.md, "Readiness"): whether a balancer should send this instance requests, with each
// check named. 503 only for what taking this instance out fixes: shutting down (first of all: process/shutdown.ts's
// drain), or its store lacking a migration this code ships (the whole set recorded is compared with the set shipped,
// and what is missing is named). A store that is down or slow is shared by every instance and live pages work
// without it: its check says "degraded", with the reason, and the answer stays 200. The embedded store not opened
// yet is ready (it opens when first needed) and says so. The collector (collecting here, standby while another
// instance holds its lock, its lag) and the outbox (what waits, since when) are reported, and never make the
// instance unready: another instance could do nothing better about a slow API or a receiver that is down.
import { compareMigrations, loadMigrations, MigrationFailedError, recordedVersions, type Migration } from '../store/migrations';
import { outboxBacklog, type OutboxBacklog } from '../store/deliveries';
import type { Db } from '../store/db';
import type { Store } from '../store/store';
import { DeadlineExceeded, withDeadline } from '../lib/deadline';
import type { CollectorWatch } from './collector-watch';

/** How long the store may take to answer readiness's query before the instance counts as not ready. */
export const READY_STORE_DEADLINE_MS = 1_500;
/** The collector has been failing to read the API for this long: its check says "lagging". */
export const COLLECTOR_LAG_WARN_MS = 5 * 60_000;

export type StoreCheck =
  /** `unknown_migrations`: versions recorded that this code does not ship (a newer server's, during a rolling upgrade). */
  | { status: 'ok'; kind: Store['kind']; migration: number; took_ms: number; unknown_migrations?: number[] }
  | { status: 'not opened' | 'opening'; kind: 'pglite'; detail: string }
  | { status: 'migrations missing'; kind: Store['kind']; missing: string[]; detail: string }
  | { status: 'degraded' | 'not checked'; kind: Store['kind']; detail: string };

export interface CollectorCheck {
  status: 'collecting' | 'lagging' | 'standby' | 'waiting for the store';
  /** Seconds since the collector last read the API successfully (null: not yet, or not collecting here). */
  lag_s: number | null;
  last_success_at: string | null;
}

export type OutboxCheck = { status: 'ok'; pending: number; oldest_pending_s: number | null } | { status: 'unknown' | 'not checked'; detail: string };

export interface Readiness {
  /** `degraded`: ready, with a shared part (the store) down; 200 like `ready`, the check says which. */
  status: 'ready' | 'degraded' | 'not ready' | 'draining';
  checks: { store: StoreCheck; collector: CollectorCheck; outbox: OutboxCheck };
}

/** What /readyz tells a client that may not read the details (server/ops/ops-routes.ts): each check's name and status. */
export interface ReadinessSummary {
  status: Readiness['status'];
  checks: { [Name in keyof Readiness['checks']]: { status: Readiness['checks'][Name]['status'] } };
}

export function summaryOf(readiness: Readiness): ReadinessSummary {
  const { store, collector, outbox } = readiness.checks;
  return { status: readiness.status, checks: { store: { status: store.status }, collector: { status: collector.status }, outbox: { status: outbox.status } } };
}

/** The HTTP status /readyz answers with: 503 only while a balancer should take this instance out. */
export const httpStatusOf = (readiness: Pick<Readiness, 'status'>): 200 | 503 => (readiness.status === 'ready' || readiness.status === 'degraded' ? 200 : 503);

/** The readiness check as /readyz calls it, with METRICS_TOKEN: who, besides this machine, may read its details. */
export interface ReadinessProbe {
  (): Promise<Readiness>;
  readonly metricsToken?: string | undefined;
}

export interface ReadinessOptions {
  store: Pick<Store, 'kind' | 'opened' | 'failing' | 'openError'> & Partial<Pick<Store, 'opening'>>;
  /** METRICS_TOKEN (server/config.ts). */
  metricsToken?: string | undefined;
  /** Whether this instance collects now (lead/leader.ts). */
  leading: () => boolean;
  collector: Pick<CollectorWatch, 'lastSuccessAt' | 'failingSince'>;
  draining: () => boolean;
  now?: () => number;
  deadlineMs?: number;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The migration that kept the store from opening, if that is why (store.ts wraps it in StoreUnavailableError). */
function failedMigration(error: Error | undefined): MigrationFailedError | undefined {
  if (error instanceof MigrationFailedError) return error;
  return error?.cause instanceof MigrationFailedError ? error.cause : undefined;
}

export function createReadiness({
  store,
  metricsToken,
  leading,
  collector,
  draining,
  now = Date.now,
  deadlineMs = READY_STORE_DEADLINE_MS,
}: ReadinessOptions): ReadinessProbe {
  let shipped: Promise<Migration[]> | undefined;
  const shippedMigrations = () => (shipped ??= loadMigrations());
  // One query of each at a time, past its deadline too: a balancer asking every second while the store hangs ties
  // up one of the pool's connections, not one per question.
  let probing: Promise<number[]> | undefined;
  const recorded = (db: Db) => (probing ??= recordedVersions(db).finally(() => (probing = undefined)));
  let reading: Promise<OutboxBacklog> | undefined;
  const backlog = (db: Db) => (reading ??= outboxBacklog(db).finally(() => (reading = undefined)));

  const checkStore = async (db: Db | undefined): Promise<StoreCheck> => {
    if (!db) {
      const error = store.openError();
      const migration = failedMigration(error);
      if (migration) return { status: 'migrations missing', kind: store.kind, missing: [...migration.missing], detail: migration.message };
      // Opened at start in the background (server/store/store.ts): ready meanwhile, as live pages need no store.
      if (store.kind === 'pglite' && store.opening?.())
        return { status: 'opening', kind: 'pglite', detail: 'The embedded store is opening (begun at start); what needs it waits for it.' };
      if (store.kind === 'pglite' && !error) return { status: 'not opened', kind: 'pglite', detail: 'The embedded store opens when something first needs it.' };
      const tries = `tried ${store.failing()} ${store.failing() === 1 ? 'time' : 'times'}, again every few seconds`;
      return { status: 'degraded', kind: store.kind, detail: error ? `${error.message} (${tries})` : `The store has not opened yet (${tries}).` };
    }
    const started = performance.now();
    try {
      const [versions, migrations] = await withDeadline(Promise.all([recorded(db), shippedMigrations()]), deadlineMs);
      const took = Math.round(performance.now() - started);
      const { missing, unknown } = compareMigrations(versions, migrations);
      if (missing.length > 0)
        return {
          status: 'migrations missing',
          kind: store.kind,
          missing,
          detail: `The store has not recorded ${missing.join(', ')}: this server needs ${missing.length === 1 ? 'it' : 'them'} (docs/operations.md, "Migrations").`,
        };
      return {
        status: 'ok',
        kind: store.kind,
        migration: Math.max(0, ...versions),
        took_ms: took,
        ...(unknown.length > 0 ? { unknown_migrations: unknown } : {}),
      };
    } catch (error) {
      const detail = error instanceof DeadlineExceeded ? `The store did not answer within ${deadlineMs} ms.` : describe(error);
      return { status: 'degraded', kind: store.kind, detail };
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
    if (!db)
      return store.kind === 'pglite' && !store.openError()
        ? { status: 'ok', pending: 0, oldest_pending_s: null }
        : { status: 'unknown', detail: 'The store is unavailable.' };
    if (!storeOk) return { status: 'unknown', detail: 'The store is unavailable.' };
    try {
      const waiting = await withDeadline(backlog(db), deadlineMs);
      return {
        status: 'ok',
        pending: waiting.pending,
        oldest_pending_s: waiting.oldestQueuedAt ? Math.max(0, Math.round((now() - waiting.oldestQueuedAt.getTime()) / 1_000)) : null,
      };
    } catch (error) {
      return { status: 'unknown', detail: error instanceof DeadlineExceeded ? `The store did not answer within ${deadlineMs} ms.` : describe(error) };
    }
  };

  // Questions asked together get one answer.
  let running: Promise<Readiness> | undefined;
  const check = async (): Promise<Readiness> => {
    const db = store.opened();
    const storeCheck = await checkStore(db);
    const outbox = await checkOutbox(db, storeCheck.status === 'ok');
    const status = draining() ? 'draining' : storeCheck.status === 'migrations missing' ? 'not ready' : storeCheck.status === 'degraded' ? 'degraded' : 'ready';
    return { status, checks: { store: storeCheck, collector: checkCollector(), outbox } };
  };
  const probe = async (): Promise<Readiness> => {
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
  return Object.assign(probe, { metricsToken });
}
