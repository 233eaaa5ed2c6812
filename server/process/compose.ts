// The one composition root (docs/architecture.md): every way the server starts (`npm start` as one process
// or as each of several instances, `npm run dev`, the tests' servers) builds its parts here, in one order:
// the environment and the logger, the API backend, the seal, the store, sessions, the API reader and access
// check, the collector and notifications where this instance leads, readiness and metrics, the rooms' routes
// in Fastify (server/routes/router.ts), the listening socket and the banner. What differs between them is only where pages and files come from (`serving`).
import type http from 'node:http';
import { readConfig, type ServerConfig } from '../config';
import { pruneAudit } from '../store/audit-trail';
import { auditRoutes } from '../auth/audit-routes';
import { createOidc } from '../auth/oidc';
import { createTeamGate, proxySessions } from '../auth/team-gate';
import { createHostCheck } from '../http/host-check';
import { createHttpServer, listen, originOf } from '../http/listen';
import { FAULTS_CONTROL_PATH } from '../http/paths';
import { createTurnBudget, type TurnBudget } from '../http/turn-budget';
import { archiveRoutes } from '../archive/archive-routes';
import { startCollector } from '../collector/collector';
import { createInsights } from '../insights/insights-routes';
import { leadWhereThisInstanceMay, type Leader } from '../lead/leader';
import { startStoreUpkeep } from '../collector/store-upkeep';
import { linkBase } from '../notify/links';
import { createNotifications } from '../notify/notifications';
import { notifyRoutes } from '../notify/notify-routes';
import { sendWebhook } from '../notify/send-webhook';
import { asLogger, createLogger, type Log, type Logger } from '../log/logger';
import { watchCollectorReads } from '../ops/collector-watch';
import { createMetrics, type Metrics } from '../ops/metrics';
import { opsRoutes } from '../ops/ops-routes';
import { createReadiness } from '../ops/readiness';
import type { ApiBackend } from '../proxy/api-backend';
import { createApiReader } from '../proxy/api-reader';
import { createProjectAccess } from '../proxy/project-access';
import { createPages, type PagesOptions } from '../pages/page-routes';
import type { Room, RoutesOptions } from '../routes/pipeline';
import { mountRoutes } from '../routes/router';
import { apiRoutes } from '../session/api-route';
import { sessionRoutes } from '../session/session-routes';
import { createSeal } from '../seal/seal';
import { resolveSessionSecret } from '../session/session-secret';
import { createSessions } from '../session/sessions';
import { renameKeptKeysOnOpen } from '../session/kept-key-names';
import { pendingSignOutsDir } from '../session/pending-sign-outs';
import { createStoredRevocations } from '../session/stored-revocations';
import { createStore, dbOf, OPEN_WAIT_MS, type Store } from '../store/store';
import { StoreUnavailableError, type Db } from '../store/db';
import type { StoreConfig } from '../store/index';
import { createHeavyReads, type HeavyReads, type HeavyReadsOptions } from '../store/heavy-reads';
import { withDeadline } from '../lib/deadline';
import { bannerLines, formatBanner } from './banner';
import { apiBackendOf } from './demo-key';
import { createDrain, type Drain } from './shutdown';
import { createLiveFeed } from '../live/feed';
import { startFollower } from '../live/follower';
import { liveRoutes } from '../live/live-routes';
import { createReadable } from '../live/readable';

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
  /** Its rooms' routes, as they declared them, and the hooks' parts: what its Fastify router was built from (server/routes/router.ts). */
  routing: RoutesOptions;
  /** The heavy reads' slots (server/store/heavy-reads.ts). */
  heavyReads: HeavyReads;
  /** Drains (accepting connections for `acceptMs` first: a signal's SHUTDOWN_GRACE_MS) and closes everything the server made; resolves when done. */
  stop: (drain?: { acceptMs?: number }) => Promise<void>;
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
  /** What opens the store (server/store/index.ts's openStore): a test holds it open to see what is answered meanwhile. */
  openStore?: (config: StoreConfig) => Promise<Db>;
  /** false: a fresh embedded store opens when first needed, not at start (tests that never use it: server/store/store.ts). */
  openStoreAtStart?: boolean;
  /** How many heavy reads run at once, and how long the others wait (server/store/heavy-reads.ts). */
  heavyReads?: HeavyReadsOptions;
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
  // The embedded store opens in the background (server/store/store.ts): the server listens meanwhile.
  const store = await createStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    log,
    ...(given.openStore ? { open: given.openStore } : {}),
    ...(given.openStoreAtStart === false ? { openAtStart: false } : {}),
  });
  renameKeptKeysOnOpen(store, seal, log);
  const revocations = createStoredRevocations(store, { log, pendingDir: pendingSignOutsDir(config.dataDir) });
  // A request with a session waits for the sign-outs kept in the store (OPEN_WAIT_MS at most); nothing else does.
  let revocationsRead = false;
  void revocations.ready.then(() => (revocationsRead = true));
  const sessionsReady = () =>
    revocationsRead
      ? undefined
      : withDeadline(revocations.ready, OPEN_WAIT_MS).catch(() => {
          throw new StoreUnavailableError(`The console's store (${store.where}) is still opening; try again in a moment.`);
        });
  // Team sign-in (docs/team.md): people's sessions on the team key, each route's role enforced, the audit trail.
  const team = config.team.mode === 'key' ? undefined : config.team;
  const baseSessions = createSessions({
    seal,
    revoked: revocations,
    team: team && { mode: team.mode, teamKey: team.teamKey, sessionHours: team.sessionHours },
  });
  const sessions = team?.mode === 'proxy' ? proxySessions(baseSessions, team, log) : baseSessions;
  const gate = team ? createTeamGate(team, dbOf(store)) : undefined;
  const oidc = gate?.team.mode === 'oidc' ? createOidc({ gate, sessions, seal, log, publicUrl: config.publicUrl }) : undefined;
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
      // The audit trail's retention rides on it, on either store (a Postgres server's only prunes).
      const prune = team ? { prune: () => pruneAudit(db, team.auditRetentionDays) } : {};
      const upkeep = store.kind === 'pglite' || team ? startStoreUpkeep({ db, log, vacuum: store.kind === 'pglite', ...prune }) : undefined;
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
      // What the pages of every instance watch, read once for the deployment (docs/live.md).
      const follower = config.liveEvents
        ? startFollower({ db, read, seal, budgetPerMinute: config.archiveBudget, idleMs: config.archiveIntervalMs, log })
        : undefined;
      return {
        collector,
        stop: async () => {
          await follower?.stop();
          await collector.stop();
          await stopNotifying();
          await upkeep?.stop();
        },
      };
    },
  });

  // Heavy reads run a few at a time per process, behind the cheap ones (server/store/heavy-reads.ts).
  const heavyReads = createHeavyReads(given.heavyReads);
  metrics.watch({ store, leading: leader.isLeading, collector: collectorReads, heavyReads });
  const server = createHttpServer();
  const drain = createDrain(server, { log });
  // The change feed as this instance reads it, for its streams (docs/live.md).
  const feed = createLiveFeed({ store, log });
  const live = liveRoutes({
    feed,
    sessions,
    readable: createReadable(access, seal),
    seal,
    draining: () => drain.draining,
    counted: metrics.liveStream,
  });
  const ready = createReadiness({
    store,
    metricsToken: config.metricsToken,
    leading: leader.isLeading,
    collector: collectorReads,
    draining: () => drain.draining,
  });
  const parts = await serving(server, config);
  const faultControl = faultControlEnabled(mode, config);
  // The rooms: each one's declarations, built from its own parts, a Fastify plugin of its own (server/routes/router.ts).
  const turns = parts.turns ?? createTurnBudget();
  const insights = createInsights({ store, seal, access, heavy: heavyReads });
  const pages = createPages({
    ...parts,
    sessions,
    fetchApi: backend.fetch,
    fetchOwn: insights.fetch,
    turns,
    apiUrl: config.apiIsSimulator ? undefined : config.apiUrl,
    liveOff: !config.liveEvents,
    log,
    sent: metrics.page,
    team: gate,
    access,
  });
  const rooms: Room[] = [
    { name: 'ops', routes: opsRoutes({ draining: () => drain.draining, ready, metrics, metricsToken: config.metricsToken }) },
    {
      name: 'api',
      routes: apiRoutes({ sessions, fetchApi: backend.fetch, serve: backend.serve, faultControl: faultControl ? backend.faultControl : undefined, team: gate }),
    },
    { name: 'session', routes: sessionRoutes({ sessions, read, servePage: pages.serve, team: team && { signOutTo: oidc?.signOutTo } }) },
    { name: 'archive', routes: archiveRoutes({ store, read, seal, access, wake: () => void leader.wake() }) },
    { name: 'insights', routes: insights.routes },
    { name: 'notify', routes: notifyRoutes({ sessions, notifications }) },
    ...(gate ? [{ name: 'auth', routes: [...(oidc?.routes ?? []), ...auditRoutes(dbOf(store))] }] : []),
    // LIVE_EVENTS=off: no /events at all (the pages poll as before it).
    ...(config.liveEvents ? [{ name: 'live', routes: live.routes }] : []),
    { name: 'pages', routes: pages.routes },
  ];
  const routing: RoutesOptions = {
    rooms,
    sessions,
    assets: parts.assets,
    withCsp: mode === 'production',
    styleHashes: parts.styleHashes,
    log,
    answered: metrics.answered,
    hostAllowed: createHostCheck({ bindHost: config.host, publicUrl: config.publicUrl, allowedHosts: config.allowedHosts }),
    publicUrl: config.publicUrl,
    turns,
    sessionsReady,
    team: gate,
  };
  // Fastify takes the server's requests over, and is ready before the server listens.
  await mountRoutes(server, routing);
  const url = originOf(await listen(server, config.host, config.port), config.host);
  // Without PUBLIC_URL, event links name the port actually bound (PORT=0 picks one).
  if (!config.publicUrl) links.href = url;

  const banner = bannerLines({
    url,
    config,
    backend: backend.banner,
    faultControl: faultControl && backend.faultControl ? `${url.replace(/\/$/, '')}${FAULTS_CONTROL_PATH}` : undefined,
    secret,
    // The embedded store opens in the background: the log's store.ready line says when it is ready.
    store: `${storeBannerName(store)}${store.opening() ? ' (opening in the background; the log says when it is ready)' : ''}`,
    processNote,
  });
  if (!instance) print(formatBanner(banner));

  const stop = async ({ acceptMs = 0 }: { acceptMs?: number } = {}) => {
    const drained = drain.start({ acceptMs });
    // Streams never finish by themselves: each ends now, and its page reconnects (to another instance, past the balancer).
    live.close();
    await drained;
    await feed.stop();
    await parts.close?.();
    // The collector stops before the backend closes: the demo's world is written on closing, and an operation the
    // collector recorded after that write would be kept by the archive but gone from the world after a restart.
    await leader.stop();
    await backend.close?.();
    await revocations.stop();
    await notifications.settle();
    await store.close();
  };
  return { server, url, config, backend, store, leader, drain, banner, metrics, log, routing, heavyReads, stop };
}

/** The store as the banner names it. */
export function storeBannerName(store: Pick<Store, 'kind' | 'where'>): string {
  return store.kind === 'pglite' ? `embedded PGlite in ${store.where}` : store.where;
}
