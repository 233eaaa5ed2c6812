// The one composition root (docs/architecture.md): every way the server starts (`npm start` as one process
// or as each of several instances, `npm run dev`, the tests' servers) builds its parts here, in one order:
// the environment and the logger, the API backend, the seal, the store, sessions, the API reader and access
// check, the collector and notifications where this instance leads, readiness and metrics, the request
// pipeline, the listening socket and the banner. What differs between them is only where pages and files come from (`serving`).
import type http from 'node:http';
import path from 'node:path';
import { readConfig, type ServerConfig } from '../config';
import { createHostCheck } from '../http/host-check';
import { createHttpServer, listen, originOf } from '../http/listen';
import { FAULTS_CONTROL_PATH } from '../http/paths';
import { createTurnBudget, type TurnBudget } from '../http/turn-budget';
import { archiveRoutes } from '../archive/archive-routes';
import { startCollector } from '../collector/collector';
import { createInsights } from '../insights/insights-routes';
import { leadWhereThisInstanceMay, type Leader } from '../collector/leader';
import { startStoreUpkeep } from '../collector/store-upkeep';
import { linkBase } from '../notify/links';
import { createNotifications } from '../notify/notifications';
import { notifyRoutes } from '../notify/notify-routes';
import { sendWebhook } from '../notify/send-webhook';
import { asLogger, createLogger, processLog, type Log, type Logger } from '../log/logger';
import { watchCollectorReads } from '../ops/collector-watch';
import { createMetrics, type Metrics } from '../ops/metrics';
import { opsRoutes } from '../ops/ops-routes';
import { createReadiness } from '../ops/readiness';
import { createApiBackend, type ApiBackend } from '../proxy/api-backend';
import { createApiReader } from '../proxy/api-reader';
import { createProjectAccess } from '../proxy/project-access';
import { createPages, type PagesOptions } from '../pages/page-routes';
import { createRequestHandler, type RoutesOptions } from '../routes/pipeline';
import { apiRoutes } from '../session/api-route';
import type { Route } from '../session/route-guard';
import { sessionRoutes } from '../session/session-routes';
import { createSeal, FINGERPRINT_LENGTH } from '../session/seal';
import { resolveSessionSecret } from '../session/session-secret';
import { createSessions } from '../session/sessions';
import { createStoredRevocations } from '../session/stored-revocations';
import { refingerprintSources } from '../store/sources';
import { DEMO_KEY_FILE, DEMO_KEY_MIN_LENGTH, keep, readKept } from '../store/kept-file';
import { createStore, dbOf, type Store } from '../store/store';
import { bannerLines, formatBanner } from './banner';
import { createDrain, type Drain } from './shutdown';

export type Mode = 'production' | 'dev';

export type { Log, Logger };

/** What differs between `npm start` and `npm run dev`: where pages and files come from. */
export type ServingParts = Pick<PagesOptions, 'template' | 'assets' | 'pagesFirst' | 'render' | 'renderDeadlineMs' | 'maxRenders' | 'maxReactRenders'> & {
  /** Hashes of the <style> the template carries inline, for the CSP's style-src. */
  styleHashes?: readonly string[];
  /** How many requests start per turn of the event loop (server/http/turn-budget.ts's TURN_BUDGET_MS otherwise). */
  turns?: TurnBudget;
  /** Dev: closes Vite with the server. */
  close?: () => Promise<void>;
};

export interface RunningServer {
  server: http.Server;
  url: string;
  config: ServerConfig;
  backend: ApiBackend;
  store: Store;
  /** Whether (and how much) this instance collects. */
  leader: Leader;
  drain: Drain;
  /** The banner as this instance would print it. */
  banner: string[];
  /** This instance's figures (/metrics). */
  metrics: Metrics;
  /** Where its lines go. */
  log: Logger;
  /** Its routes, as the rooms declared them (server/routes/table.ts), and the hooks' parts: what its request handler was built from. */
  routing: RoutesOptions;
  /** Drains and closes everything the server made; resolves when done. */
  stop: () => Promise<void>;
}

/**
 * The API backend the configuration names: the forwarding proxy to API_URL, or the simulator, whose demo key
 * (unless SIM_API_KEY fixes one) is kept in DATA_DIR like the session secret, so an open tab and a kept archive
 * key go on working across a restart. A DATA_DIR that cannot keep it only means a new key each start.
 */
export async function apiBackendOf(config: ServerConfig, log: Log, sent?: Metrics['apiSent']): Promise<ApiBackend> {
  const options = { simHugeProject: config.simHugeProject, simRateLimits: config.simRateLimits, log, ...(sent ? { sent } : {}) };
  if (config.apiUrl) return createApiBackend({ ...options, apiUrl: config.apiUrl });
  if (config.simApiKey) return createApiBackend({ ...options, simApiKey: config.simApiKey });
  const dataDir = path.resolve(config.dataDir);
  const kept = await readKept(dataDir, DEMO_KEY_FILE, DEMO_KEY_MIN_LENGTH).catch((error: unknown) => {
    log(`Simulator: the demo key kept in DATA_DIR cannot be read (${error instanceof Error ? error.message : String(error)}); making a new one`);
    return undefined;
  });
  const backend = createApiBackend({ ...options, simApiKey: kept });
  if (kept === undefined && backend.demoKey) {
    await keep(dataDir, DEMO_KEY_FILE, backend.demoKey, DEMO_KEY_MIN_LENGTH).catch((error: unknown) =>
      log(`Simulator: the demo key could not be kept in DATA_DIR (${error instanceof Error ? error.message : String(error)}); a restart makes a new one`),
    );
  }
  return backend;
}

/** The simulator's fault control: always on dev, on `npm start` with SIM_FAULTS=1, never in front of a real API. */
export function faultControlEnabled(mode: Mode, config: Pick<ServerConfig, 'apiUrl' | 'simFaults'>): boolean {
  if (config.apiUrl) return false;
  return mode === 'dev' || config.simFaults;
}

export interface StartOptions {
  mode: Mode;
  env?: NodeJS.ProcessEnv;
  /** Where the banner goes (stdout by default): plain lines, printed once. */
  print?: (line: string) => void;
  /**
   * Where the server's lines go: a Logger takes a line per request and every event (by default JSON on stdout,
   * as LOG_FORMAT and LOG_LEVEL say: server/log/logger.ts); a plain Log takes the events only.
   */
  log?: Log | Logger;
  serving: (server: http.Server, config: ServerConfig) => Promise<ServingParts>;
  /** One of several instances (process/run.ts): the primary prints the banner, once. */
  instance?: boolean;
  /** Why fewer processes serve than WEB_CONCURRENCY asked for (the banner says it). */
  processNote?: string | undefined;
  /** An API backend of the caller's instead of the one the environment names (the component tests' simulator on their own clock). */
  backend?: ApiBackend;
}

export async function startServer({
  mode,
  env = process.env,
  print = (line) => void process.stdout.write(`${line}\n`),
  serving,
  instance = false,
  processNote,
  ...given
}: StartOptions): Promise<RunningServer> {
  const config = readConfig(env);
  const log = asLogger(given.log ?? createLogger({ level: config.logLevel, format: config.logFormat }));
  // This instance's figures (/metrics): counted from the first call; what is state is watched once it exists (below).
  const metrics = createMetrics();
  const backend = given.backend ?? (await apiBackendOf(config, log, metrics.apiSent));
  const secret = await resolveSessionSecret({ configured: config.sessionSecret, dataDir: config.dataDir });
  const seal = createSeal(secret.secret);
  const store = await createStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
  // Kept keys named as every session names its key (the archive once had a fingerprint of its own).
  store.onOpen((db) => {
    const fingerprintOf = (sealed: string) => {
      const key = seal.open('kept-key', sealed);
      return key === null ? null : seal.fingerprint(key);
    };
    refingerprintSources(db, fingerprintOf, FINGERPRINT_LENGTH).catch((error: unknown) =>
      log(`Archive: could not rename kept keys (${error instanceof Error ? error.message : String(error)})`, {
        event: 'archive.rename_failed',
        level: 'error',
      }),
    );
  });
  const revocations = createStoredRevocations(store, { log });
  await revocations.ready;
  const sessions = createSessions({ seal, revoked: revocations });
  const read = createApiReader(backend.fetch);
  const access = createProjectAccess(read);
  const links = linkBase(config);
  const notifications = createNotifications({
    db: dbOf(store),
    seal,
    access,
    send: sendWebhook,
    publicUrl: links,
    allowPrivate: config.webhookAllowPrivate,
    log,
    attempted: metrics.delivery,
  });
  // The collector's lag is read off its reads (server/ops/collector-watch.ts).
  const collectorReads = watchCollectorReads(read);
  const leader = leadWhereThisInstanceMay({
    store,
    databaseUrl: config.databaseUrl,
    lockRetryMs: config.archiveLockRetryMs,
    log,
    start: (db) => {
      // PGlite runs no autovacuum: its upkeep runs beside the collector (a Postgres server's does it by itself).
      const upkeep = store.kind === 'pglite' ? startStoreUpkeep({ db, log }) : undefined;
      const collector = startCollector({
        db,
        read: collectorReads.read,
        seal,
        budgetPerMinute: config.archiveBudget,
        intervalMs: config.archiveIntervalMs,
        fullReadMs: config.archiveFullReadMs,
        log,
        ...(upkeep ? { onBackfilled: upkeep.wake } : {}),
      });
      const stopNotifying = notifications.start();
      return {
        collector,
        stop: async () => {
          await collector.stop();
          await stopNotifying();
          await upkeep?.stop();
        },
      };
    },
  });

  metrics.watch({ store, leading: leader.isLeading, collector: collectorReads });
  const server = createHttpServer();
  const drain = createDrain(server, { log });
  const ready = createReadiness({ store, leading: leader.isLeading, collector: collectorReads, draining: () => drain.draining });
  const parts = await serving(server, config);
  const faultControl = faultControlEnabled(mode, config);
  // The route table: each room's declarations, built from its own parts (server/routes/pipeline.ts dispatches them).
  const turns = parts.turns ?? createTurnBudget();
  const insights = createInsights({ store, seal, access });
  const pages = createPages({
    ...parts,
    sessions,
    fetchApi: backend.fetch,
    fetchOwn: insights.fetch,
    turns,
    apiUrl: config.apiIsSimulator ? undefined : config.apiUrl,
    log,
    sent: metrics.page,
  });
  const routes: Route[] = [
    ...opsRoutes({ draining: () => drain.draining, ready, metrics, metricsToken: config.metricsToken }),
    ...apiRoutes({ sessions, fetchApi: backend.fetch, serve: backend.serve, faultControl: faultControl ? backend.faultControl : undefined }),
    ...sessionRoutes({ sessions, read, servePage: pages.serve }),
    ...archiveRoutes({ store, read, seal, access, wake: leader.wake }),
    ...insights.routes,
    ...notifyRoutes({ sessions, notifications }),
    ...pages.routes,
  ];
  const routing: RoutesOptions = {
    routes,
    sessions,
    assets: parts.assets,
    withCsp: mode === 'production',
    styleHashes: parts.styleHashes,
    log,
    answered: metrics.answered,
    hostAllowed: createHostCheck({ bindHost: config.host, publicUrl: config.publicUrl, allowedHosts: config.allowedHosts }),
    publicUrl: config.publicUrl,
    turns,
  };
  server.on('request', createRequestHandler(routing));
  const url = originOf(await listen(server, config.host, config.port), config.host);
  // Without PUBLIC_URL, event links name the port actually bound (PORT=0 picks one).
  if (!config.publicUrl) links.href = url;

  const banner = bannerLines({
    url,
    config,
    backend: backend.banner,
    faultControl: faultControl && backend.faultControl ? `${url.replace(/\/$/, '')}${FAULTS_CONTROL_PATH}` : undefined,
    secret,
    store: storeBannerName(store),
    processNote,
  });
  if (!instance) print(formatBanner(banner));

  const stop = async () => {
    await drain.start();
    await parts.close?.();
    await revocations.stop();
    await leader.stop();
    await notifications.settle();
    await store.close();
  };
  return { server, url, config, backend, store, leader, drain, banner, metrics, log, routing, stop };
}

/** The store as the banner names it. */
export function storeBannerName(store: Pick<Store, 'kind' | 'where'>): string {
  return store.kind === 'pglite' ? `embedded PGlite in ${store.where}` : store.where;
}

/**
 * Ends the process once the server has drained; a second signal ends it at once. One of several instances
 * hears SIGTERM from its primary only: Ctrl-C reaches the whole process group, and the primary passes it on.
 */
export function exitOnSignals(
  running: Pick<RunningServer, 'stop'> & Partial<Pick<RunningServer, 'log'>>,
  { log = running.log ?? processLog, instance = false }: { log?: Log; instance?: boolean } = {},
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal}: finishing the requests in flight, then exiting`, { event: 'shutdown.signal', signal });
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  if (instance) process.on('SIGINT', () => undefined);
  else process.on('SIGINT', onSignal);
}
