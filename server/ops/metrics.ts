// /metrics's figures (docs/operations.md, "Metrics"), in Prometheus's text format (prom-client): one set per
// instance (a process is an instance), counted where things happen and handed in by process/compose.ts as
// plain callbacks (the request pipeline, pages, the API backend, deliveries), read at scrape time where they
// are state (the collector, the outbox, the store's pool). Labels are few and bounded: a route's template, a
// method, a status class or code.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AnsweredRequest } from '../http/request-log';
import { PLATFORM_REQUESTS_PER_MINUTE } from '../../src/config/platform-limits';
import { settledWithin } from '../lib/deadline';
import { outboxBacklog } from '../store/deliveries';
import type { Store } from '../store/store';
import type { CollectorWatch } from './collector-watch';
import type { HeavyReads } from '../store/heavy-reads';

/** How long a scrape waits for the outbox's figures before it leaves them out. */
const OUTBOX_DEADLINE_MS = 1_000;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export type DeliveryResult = 'delivered' | 'retrying' | 'failed';

export interface Metrics {
  /** A request answered (server/http/request-log.ts). */
  answered: (answer: AnsweredRequest) => void;
  /** A page sent, its screen rendered or as the shell (server/pages/page.ts). */
  page: (sent: 'rendered' | 'shell') => void;
  /** A call sent to the API, with the status it answered (0: none). */
  apiSent: (status: number) => void;
  /** A webhook delivery attempted. */
  delivery: (result: DeliveryResult) => void;
  /** A live stream (GET /events, server/live/) opened (+1) or closed (-1) on this instance. */
  liveStream: (delta: 1 | -1) => void;
  /** From now on, the figures that are state: the store, the collector, the outbox (once the server has them). */
  watch: (state: WatchedState) => void;
  /** The text Prometheus reads, and its content type. */
  scrape: () => Promise<{ contentType: string; text: string }>;
}

export interface WatchedState {
  store: Pick<Store, 'kind' | 'opened'>;
  /** The heavy reads' slots (server/store/heavy-reads.ts). */
  heavyReads?: Pick<HeavyReads, 'running' | 'waiting'>;
  leading: () => boolean;
  collector: Pick<CollectorWatch, 'lastSuccessAt'>;
}

// The process's own figures (CPU, memory, event loop, GC) once per process, however many servers a test starts in it.
let processFigures: Registry | undefined;
function processRegistry(): Registry {
  if (!processFigures) {
    processFigures = new Registry();
    collectDefaultMetrics({ register: processFigures });
  }
  return processFigures;
}

/** Requests sent in the last minute, in one-second buckets (any number of requests costs 60 counters). */
function lastMinuteCounter(now: () => number) {
  const counts = new Array<number>(60).fill(0);
  const seconds = new Array<number>(60).fill(-1);
  return {
    add() {
      const second = Math.floor(now() / 1_000);
      const slot = second % 60;
      if (seconds[slot] !== second) {
        seconds[slot] = second;
        counts[slot] = 0;
      }
      counts[slot] = (counts[slot] ?? 0) + 1;
    },
    total() {
      const second = Math.floor(now() / 1_000);
      return counts.reduce((sum, count, slot) => ((seconds[slot] ?? -1) > second - 60 ? sum + count : sum), 0);
    },
  };
}

export function createMetrics(now: () => number = Date.now): Metrics {
  const registry = new Registry();
  const lastMinute = lastMinuteCounter(now);

  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Requests answered by this instance, by route template, method and status class, and how long each took.',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const pages = new Counter({
    name: 'ops_console_pages_total',
    help: 'Pages sent: rendered (their screen rendered on the server), or shell (for the browser to fill in: no render, past its deadline, overloaded).',
    labelNames: ['sent'] as const,
    registers: [registry],
  });
  const apiRequests = new Counter({
    name: 'ops_console_api_requests_total',
    help: 'Calls this instance sent the API (the pages through the session, the server itself, the collector), by the status it answered (none: no answer).',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'ops_console_api_requests_last_minute',
    help: 'Calls this instance sent the API in the last 60 seconds.',
    registers: [registry],
    collect() {
      this.set(lastMinute.total());
    },
  });
  new Gauge({
    name: 'ops_console_api_budget_remaining',
    help: `What is left of the platform's ${PLATFORM_REQUESTS_PER_MINUTE} requests a minute per account after this instance's calls of the last 60 seconds (all accounts together: the most any one account can have left).`,
    registers: [registry],
    collect() {
      this.set(Math.max(0, PLATFORM_REQUESTS_PER_MINUTE - lastMinute.total()));
    },
  });
  const deliveries = new Counter({
    name: 'ops_console_webhook_deliveries_total',
    help: 'Webhook delivery attempts this instance made, by result: delivered, retrying (failed, tried again later), failed (given up).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const liveStreams = new Gauge({
    name: 'ops_console_live_streams',
    help: 'Live streams (GET /events, docs/live.md) open on this instance now.',
    registers: [registry],
  });
  // Every result and page kind from the start, at 0: a rate over a series that appears late misses its first step.
  for (const sent of ['rendered', 'shell']) pages.inc({ sent }, 0);
  for (const result of ['delivered', 'retrying', 'failed']) deliveries.inc({ result }, 0);

  return {
    answered: ({ route, method, status, seconds }) => {
      requests.observe({ route, method: METHODS.has(method) ? method : 'other', status_class: `${Math.floor(status / 100)}xx` }, seconds);
    },
    page: (sent) => pages.inc({ sent }),
    apiSent: (status) => {
      lastMinute.add();
      apiRequests.inc({ status: status === 0 ? 'none' : String(status) });
    },
    delivery: (result) => deliveries.inc({ result }),
    liveStream: (delta) => liveStreams.inc(delta),
    watch: (state) => watchState(registry, state, now),
    scrape: async () => {
      const [own, ofProcess] = await Promise.all([registry.metrics(), processRegistry().metrics()]);
      return { contentType: registry.contentType, text: `${ofProcess}\n${own}` };
    },
  };
}

function watchState(registry: Registry, { store, leading, collector, heavyReads }: WatchedState, now: () => number): void {
  new Gauge({
    name: 'ops_console_collector_leader',
    help: '1 while this instance runs the archive collector (and the webhook loop), 0 while another does or the store is not open.',
    registers: [registry],
    collect() {
      this.set(leading() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ops_console_collector_lag_seconds',
    help: 'Seconds since the collector on this instance last read the API successfully (NaN: not yet).',
    registers: [registry],
    collect() {
      const success = collector.lastSuccessAt();
      this.set(success === undefined ? Number.NaN : (now() - success) / 1_000);
    },
  });
  new Gauge({
    name: 'ops_console_collector_last_success_timestamp_seconds',
    help: 'When the collector on this instance last read the API successfully, in seconds since the epoch (0: never).',
    registers: [registry],
    collect() {
      this.set((collector.lastSuccessAt() ?? 0) / 1_000);
    },
  });
  // Read once per scrape for both outbox figures.
  let backlog: ReturnType<typeof outboxBacklog> | undefined;
  const outbox = () => {
    const db = store.opened();
    if (!db) return Promise.resolve(undefined);
    backlog ??= outboxBacklog(db).finally(() => setImmediate(() => (backlog = undefined)));
    return settledWithin(
      backlog.catch(() => undefined),
      OUTBOX_DEADLINE_MS,
    );
  };
  new Gauge({
    name: 'ops_console_outbox_pending',
    help: "Webhook deliveries waiting to be sent or sent again (the deployment's outbox: the same on every instance; NaN: the store did not answer).",
    registers: [registry],
    async collect() {
      const figures = store.opened() ? await outbox() : { pending: 0 };
      this.set(figures ? figures.pending : Number.NaN);
    },
  });
  new Gauge({
    name: 'ops_console_outbox_oldest_pending_age_seconds',
    help: 'How long the oldest waiting webhook delivery has waited since it was queued (0: none waits; NaN: the store did not answer).',
    registers: [registry],
    async collect() {
      const figures = store.opened() ? await outbox() : { oldestQueuedAt: null };
      this.set(figures ? (figures.oldestQueuedAt ? Math.max(0, (now() - figures.oldestQueuedAt.getTime()) / 1_000) : 0) : Number.NaN);
    },
  });
  new Gauge({
    name: 'ops_console_store_open',
    help: `1 while this instance's store is open (${store.kind === 'pglite' ? 'embedded PGlite: it opens when first needed' : 'Postgres'}), 0 before.`,
    registers: [registry],
    collect() {
      this.set(store.opened() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ops_console_store_upkeep_statements',
    help: "The embedded store's upkeep statements (VACUUM, ANALYZE) since it opened (ran), and statements that arrived while one ran and waited for it (waited).",
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const stats = store.opened()?.upkeepStats?.();
      if (!stats) return;
      this.set({ kind: 'ran' }, stats.statements);
      this.set({ kind: 'waited' }, stats.waited);
    },
  });
  new Gauge({
    name: 'ops_console_heavy_reads',
    help: 'Heavy reads (insights) of this instance: running (at most two at once) and waiting for their turn.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      if (!heavyReads) return;
      this.set({ state: 'running' }, heavyReads.running());
      this.set({ state: 'waiting' }, heavyReads.waiting());
    },
  });
  new Gauge({
    name: 'ops_console_store_pool_connections',
    help: 'The Postgres pool of this instance: connections open (total), of them idle (idle), and queries waiting for one (waiting).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = store.opened()?.poolStats?.();
      if (!stats) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
}
