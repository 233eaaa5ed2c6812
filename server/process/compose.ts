// Starts the console's server (production or dev): reads the environment, makes the API backend and
// the session keys, listens on HOST:PORT (strictly: a taken port is an error, not another port), prints
// the start-up banner, and drains on SIGTERM/SIGINT.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiBackend, type ApiBackend } from '../proxy/api-backend';
import { serveArchiveRoute } from '../archive/archive-routes';
import { openArchive, type Archive, type StoreLink } from '../archive/archive-service';
import { createProjectAccess } from '../proxy/project-access';
import { readConfig, type ServerConfig } from '../config';
import { createRequestHandler, type ConsoleServerOptions } from '../routes';
import { answeredHosts, bindsEveryInterface, createHostCheck, type HostRules } from '../http/host-check';
import { FAULTS_CONTROL_PATH } from '../http/node-bridge';
import type { RevokedSessions } from '../session/revoked-sessions';
import { createSessions } from '../session/sessions';
import { createStoredRevocations } from '../session/stored-revocations';
import { isLoopbackHost } from '../session/session-cookie';
import { resolveSessionSecret, secretBannerLine } from '../session/session-secret';
import { deliverOnceStoreOpens, linkBase, startNotifications } from '../notify/start-notifications';
import { createDrain, type Drain } from './shutdown';


/**
 * How long an idle keep-alive connection stays open: longer than what a load balancer or proxy in front keeps
 * one (60 s on most). A server that closes first races the client's next request on that socket, which then
 * fails (ECONNRESET; a proxy answers 502): Node's default of 5 s did that to a test client that waited 5 s.
 */
export const KEEP_ALIVE_MS = 65_000;

export type Mode = 'production' | 'dev';

/** What differs between `npm start` and `npm run dev`: where pages and files come from. */
export type ServingParts = Pick<ConsoleServerOptions, 'template' | 'assets' | 'pagesFirst' | 'render' | 'renderDeadlineMs' | 'maxRenders' | 'maxReactRenders' | 'styleHashes' | 'turns'> & {
  /** Dev: closes Vite with the server. */
  close?: () => Promise<void>;
};

export interface RunningServer {
  server: http.Server;
  url: string;
  config: ServerConfig;
  backend: ApiBackend;
  /** The store, the kept keys, and the collector where this process collects. */
  archive: Archive;
  drain: Drain;
  /** Drains and closes everything the server made; resolves when done. */
  stop: () => Promise<void>;
}

export type Log = (line: string) => void;

export const stderrLog: Log = (line) => void process.stderr.write(`[ops-console] ${line}\n`);

/** The simulator's fault control: always on dev, on `npm start` with SIM_FAULTS=1, never in front of a real API. */
export function faultControlEnabled(mode: Mode, config: ServerConfig): boolean {
  if (config.apiUrl) return false;
  return mode === 'dev' || config.simFaults;
}

function consoleUrl(address: AddressInfo, configuredHost: string): string {
  const host = configuredHost === '' ? address.address : configuredHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`;
}

function listen(server: http.Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} on ${host} is already in use (set PORT to another one).`) : error);
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

export interface StartOptions {
  mode: Mode;
  env?: NodeJS.ProcessEnv;
  /** Where the banner goes (stdout by default). */
  print?: Log;
  /** Where problems go: an API that cannot be reached, an internal error (stderr by default). */
  log?: Log;
  serving: (server: http.Server, config: ServerConfig) => Promise<ServingParts>;
  /** A worker of several (server/cluster.ts): the simulator over the link to the primary instead of one of its own. */
  backend?: ApiBackend;
  /** A worker of several: its revocations (kept in the store) also told to the other workers. */
  shareRevocations?: (local: RevokedSessions) => RevokedSessions;
  /** A worker of several: it never collects, and on PGlite reads the primary's store over this link. */
  archive?: { collect: boolean; link?: StoreLink | undefined };
}

export async function startServer({ mode, env = process.env, print = (line) => void process.stdout.write(`${line}\n`), log = stderrLog, serving, ...shared }: StartOptions): Promise<RunningServer> {
  const config = readConfig(env);
  const backend =
    shared.backend ?? createApiBackend({ apiUrl: config.apiUrl, simApiKey: config.simApiKey, simHugeProject: config.simHugeProject, simRateLimits: config.simRateLimits, log });
  const secret = await resolveSessionSecret({ configured: config.sessionSecret, dataDir: config.dataDir });
  const archive = await openArchive({ config, secret: secret.secret, fetchApi: backend.fetch, log, collect: shared.archive?.collect ?? true, link: shared.archive?.link });
  const stored = createStoredRevocations(archive, { log });
  await stored.ready;
  const sessions = createSessions({ secret: secret.secret, revoked: shared.shareRevocations ? shared.shareRevocations(stored) : stored });
  const access = createProjectAccess(backend.fetch);
  // Notifications: routes in every process; the loop where the collector runs, once the store is open.
  const links = linkBase(config);
  const notify = startNotifications({ db: archive.db, sessionSecret: secret.secret, fetchApi: backend.fetch, publicUrl: links, env, deliver: false, log });
  const stopDelivering = (shared.archive?.collect ?? true) ? deliverOnceStoreOpens(archive, notify.notifications) : () => Promise.resolve();
  const archiveRoutes = (req: http.IncomingMessage, res: http.ServerResponse) =>
    serveArchiveRoute(req, res, { open: archive.db, opened: archive.openedAnywhere, sessions, fetchApi: backend.fetch, sealer: archive.sealer, access, wake: archive.wake });
  const server = http.createServer();
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  const drain = createDrain(server, { log });
  const parts = await serving(server, config);
  const faultControl = faultControlEnabled(mode, config);
  const hostRules: HostRules = { bindHost: config.host, publicUrl: config.publicUrl, allowedHosts: config.allowedHosts };
  const hostAllowed = createHostCheck(hostRules);
  server.on(
    'request',
    createRequestHandler({ ...parts, backend, sessions, archive: archiveRoutes, notifications: notify.notifications, faultControl, log, withCsp: mode === 'production', draining: () => drain.draining, hostAllowed, publicUrl: config.publicUrl }),
  );
  const address = await listen(server, config.host, config.port);
  const url = consoleUrl(address, config.host);
  // Without PUBLIC_URL, event links name the port actually bound (PORT=0 picks one).
  if (!config.publicUrl) links.href = url;

  const lines = [`Ops Console: ${url}`, ...backend.banner];
  if (faultControl && backend.faultControl) lines.push(`Fault injection: ${FAULTS_CONTROL_PATH} (see README)`);
  const secretLine = secretBannerLine(secret);
  if (secretLine) lines.push(secretLine);
  if (!isLoopbackHost(config.host)) lines.push('Sessions: serve this over https (a TLS proxy sending X-Forwarded-Proto): on plain http the cookie cannot be Secure');
  if (bindsEveryInterface(config.host)) {
    const others = answeredHosts(hostRules);
    lines.push(`Hosts answered: loopback names${others.length > 0 ? `, ${others.join(', ')}` : ''}; any other name gets 421: add the one people use to ALLOWED_HOSTS (comma-separated) or set PUBLIC_URL`);
  }
  print(`\n${lines.map((line) => `  ${line}`).join('\n')}\n`);

  const stop = async () => {
    await drain.start();
    await parts.close?.();
    await stored.stop();
    await stopDelivering();
    await archive.stop();
  };
  return { server, url, config, backend, archive, drain, stop };
}

/** Ends the process once the server has drained; a second signal ends it at once. */
export function exitOnSignals(running: RunningServer, log: Log = stderrLog): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal}: finishing the requests in flight, then exiting`);
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
