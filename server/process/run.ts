// `npm start` on every core: WEB_CONCURRENCY worker processes (default: the machine's cores) share the
// port through node:cluster; with one, the single process of before. What must stay one across workers
// stays in the primary and is handed to them:
// - the session secret, read (or made) once and given to each worker's environment;
// - the simulator (one simulated world, its fault plan and its demo key), served to the workers on a
//   loopback port (server/simulator-link.ts) when API_URL is unset;
// - sign-outs, told by the worker that saw them to every other, and to a worker that starts later
//   (server/cluster-messages.ts);
// - the archive's embedded store (PGlite in DATA_DIR): it opens here, in the primary, which collects and
//   lends it to the workers over loopback (server/store/db-link.ts); with DATABASE_URL every process opens
//   its own pool and the primary alone tries for the collector's lock.
// SIGTERM/SIGINT: each worker drains (server/shutdown.ts through RunningServer.stop) and exits, then the primary.
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createApiBackend } from '../proxy/api-backend';
import { readClusterMessage, SPREAD_WAIT_MS, workerRevocations, type Channel, type ClusterMessage, type Revocation } from '../cluster-messages';
import { readConfig, type ServerConfig } from '../config';
import { FAULTS_CONTROL_PATH } from '../http/node-bridge';
import { serveBuilt, type BuiltServerOptions } from './serve-built';
import { isLoopbackHost } from '../session/session-cookie';
import { resolveSessionSecret, secretBannerLine, type ResolvedSecret } from '../session/session-secret';
import { linkedSimulatorBackend, serveSimulatorLink, SIMULATOR_LINK_ENV } from '../simulator-link';
import { faultControlEnabled, stderrLog, type RunningServer } from './compose';
import { openArchive } from '../archive/archive-service';
import { deliverOnceStoreOpens, linkBase, startNotifications } from '../notify/start-notifications';
import { STORE_LINK_ENV, STORE_TOKEN_ENV } from '../store/db-link';

const MAX_WORKERS = 64;
/** Revocations the primary keeps for workers that start later. */
const MAX_RELAYED = 50_000;

/** WEB_CONCURRENCY, or the machine's cores when unset. */
export function workerCount(env: NodeJS.ProcessEnv): number {
  const text = env.WEB_CONCURRENCY?.trim() ?? '';
  if (text === '') return availableParallelism();
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS) throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to ${MAX_WORKERS}, not "${text}".`);
  return count;
}

/**
 * How a connection reaches a worker: each worker accepts its own (cluster.SCHED_NONE), unless the operator
 * asks for Node's round-robin with NODE_CLUSTER_SCHED_POLICY=rr. Either way a busy process takes at most one
 * new connection per event-loop turn (libuv accepts one per turn since 1.45, libuv/libuv#3696), and a turn of
 * a worker serving 100 busy connections lasts 50–150 ms. Round-robin adds a wait on top: the primary hands a
 * worker its next connection only once that worker has taken the last: of 200 connections opened at once,
 * the last was handed over 3–4 s after the first, every run (slowest answer 5–7 s in 7 of 7). Accepting in
 * the workers, a burst that finds them idle is taken in one go (100/100 within 15 ms). Turns are kept short
 * under load by starting requests a few per turn (server/turn-budget.ts). In front of many people, a reverse
 * proxy that holds their connections and keeps a few to each process removes the wait (README, On every core).
 */
export function schedulingPolicy(env: NodeJS.ProcessEnv): typeof cluster.schedulingPolicy {
  return env.NODE_CLUSTER_SCHED_POLICY === 'rr' ? cluster.SCHED_RR : cluster.SCHED_NONE;
}

/**
 * One secret for every worker: SESSION_SECRET, else the one kept in DATA_DIR (server/session/session-secret.ts),
 * read here once and handed to each worker's environment; random only when DATA_DIR cannot be used.
 */
async function sharedSessionSecret(config: ServerConfig): Promise<{ secret: string; resolved: ResolvedSecret }> {
  const resolved = await resolveSessionSecret({ configured: config.sessionSecret, dataDir: config.dataDir });
  return { secret: resolved.secret ?? randomBytes(32).toString('base64url'), resolved };
}

/** What one process serves (serveBuilt; a test's own server in test/server/fixtures). */
export type Serve = (clientDir: string, options?: BuiltServerOptions) => Promise<void>;

export async function runServer(clientDir: string, env: NodeJS.ProcessEnv = process.env, serve: Serve = serveBuilt): Promise<void> {
  if (cluster.isWorker) {
    await runWorker(clientDir, serve);
    return;
  }
  let count: number;
  let config: ServerConfig;
  try {
    count = workerCount(env);
    config = readConfig(env);
  } catch (error) {
    stderrLog(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  if (count === 1) await serve(clientDir);
  else await runPrimary(count, config, env);
}

function workerChannel(): Channel {
  return {
    send: (message) => void process.send?.(message),
    onMessage: (listener) =>
      void process.on('message', (raw: unknown) => {
        const message = readClusterMessage(raw);
        if (message) listener(message);
      }),
  };
}

async function runWorker(clientDir: string, serve: Serve): Promise<void> {
  const channel = workerChannel();
  // Listening for sign-outs from the start, and serving only once those made before it are known.
  const revocations = workerRevocations(channel);
  const link = process.env[SIMULATOR_LINK_ENV];
  const storeOrigin = process.env[STORE_LINK_ENV];
  const storeToken = process.env[STORE_TOKEN_ENV];
  // The primary may ask a worker to stop while it is still starting (a signal right after the banner, which
  // the first worker to listen prints): the request is kept and carried out once the server is up.
  let stop: (() => void) | undefined;
  let stopAsked = false;
  channel.onMessage((message) => {
    if (message.type !== 'ops-console:shutdown') return;
    if (stop) stop();
    else stopAsked = true;
  });
  const started = (running: RunningServer) => {
    let stopping = false;
    const stopNow = () => {
      if (stopping) return;
      stopping = true;
      running.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    stop = stopNow;
    // Ctrl-C reaches the whole process group: a worker may hear it and the primary's shutdown both.
    process.on('SIGTERM', stopNow);
    process.on('SIGINT', stopNow);
    process.on('disconnect', stopNow);
    channel.send({ type: 'ops-console:listening', url: running.url });
    if (stopAsked) stopNow();
  };
  await revocations.ready;
  await serve(clientDir, {
    ...(link ? { backend: linkedSimulatorBackend(link) } : {}),
    shareRevocations: revocations.share,
    archive: { collect: false, link: storeOrigin && storeToken ? { origin: storeOrigin, token: storeToken } : undefined },
    print: () => undefined,
    started,
  });
}

async function runPrimary(count: number, config: ServerConfig, env: NodeJS.ProcessEnv): Promise<void> {
  const print = (line: string) => void process.stdout.write(`${line}\n`);
  const { secret: sessionSecret, resolved: secretSource } = await sharedSessionSecret(config);
  // The one simulated world, here; a worker forwards to it as to API_URL.
  const backend = createApiBackend({ apiUrl: config.apiUrl, simApiKey: config.simApiKey, simHugeProject: config.simHugeProject, simRateLimits: config.simRateLimits, log: stderrLog });
  const link = config.apiUrl ? null : await serveSimulatorLink(backend, { faultControl: faultControlEnabled('production', config) });
  // The archive's store: PGlite opens here, once, collects here, and is lent to the workers like the simulator;
  // on DATABASE_URL this process only collects (under the lock) and each worker opens its own pool.
  const archive = await openArchive({ config, secret: sessionSecret, fetchApi: backend.fetch, log: stderrLog, collect: true });
  const storeLink = archive.driver === 'pglite' ? await archive.lend() : undefined;
  // Notifications' loop runs beside the collector, here; the workers serve its routes over the same store.
  const notify = startNotifications({ db: archive.db, sessionSecret, fetchApi: backend.fetch, publicUrl: linkBase(config), env: process.env, deliver: false, log: stderrLog });
  const stopDelivering = deliverOnceStoreOpens(archive, notify.notifications);
  const workerEnv = {
    SESSION_SECRET: sessionSecret,
    ...(link ? { [SIMULATOR_LINK_ENV]: link.origin } : {}),
    ...(storeLink ? { [STORE_LINK_ENV]: storeLink.origin, [STORE_TOKEN_ENV]: storeLink.token } : {}),
  };

  cluster.schedulingPolicy = schedulingPolicy(env);
  const workers = new Set<Worker>();
  let stopping = false;
  let listening = false;
  const broadcast = (from: Worker, message: ClusterMessage): Worker[] => {
    const told = [...workers].filter((worker) => worker !== from && worker.isConnected());
    for (const worker of told) worker.send(message);
    return told;
  };
  // Every revocation relayed and still in force, for a worker that starts later (its hello is answered with them),
  // and the workers listening for them (those that said hello).
  const relayed = new Map<string, Revocation>();
  const hearing = new Set<Worker>();
  const hello = (worker: Worker) => {
    const now = Date.now();
    for (const [sid, { exp }] of relayed) if (exp <= now) relayed.delete(sid);
    hearing.add(worker);
    worker.send({ type: 'ops-console:revocations', revocations: [...relayed.values()] } satisfies ClusterMessage);
  };
  // Revocations whose sender waits to hear that every other worker has them: who it is, and who has not said so yet.
  const spreading = new Map<string, { from: Worker; waiting: Set<Worker>; at: number }>();
  const heard = (id: string, worker?: Worker) => {
    const entry = spreading.get(id);
    if (!entry) return;
    if (worker) entry.waiting.delete(worker);
    if (entry.waiting.size > 0) return;
    spreading.delete(id);
    if (entry.from.isConnected()) entry.from.send({ type: 'ops-console:revoked', id } satisfies ClusterMessage);
  };
  const spread = (from: Worker, message: Extract<ClusterMessage, { type: 'ops-console:revoke' }>) => {
    const { sid, exp, reason } = message;
    if (!relayed.has(sid)) relayed.set(sid, { sid, exp, reason });
    // Bounded as a worker's own list is: past it the oldest go (they are in the store where there is one).
    if (relayed.size > MAX_RELAYED) relayed.delete(relayed.keys().next().value ?? '');
    // Told to all; waited for only from those listening (one still starting has it in its hello's answer).
    const told = broadcast(from, message).filter((worker) => hearing.has(worker));
    if (message.id === undefined) return;
    // The sender stops waiting after SPREAD_WAIT_MS: an entry a stuck worker never answered goes soon after.
    const now = Date.now();
    for (const [id, entry] of spreading) if (now - entry.at > 2 * SPREAD_WAIT_MS) spreading.delete(id);
    spreading.set(message.id, { from, waiting: new Set(told), at: now });
    heard(message.id);
  };
  const banner = (url: string) => {
    const lines = [`Ops Console: ${url}`, `Workers: ${count} processes (WEB_CONCURRENCY)`, ...backend.banner];
    if (faultControlEnabled('production', config) && backend.faultControl) lines.push(`Fault injection: ${FAULTS_CONTROL_PATH} (see README)`);
    const secretLine = secretBannerLine(secretSource);
    if (secretLine) lines.push(secretLine);
    if (!isLoopbackHost(config.host)) lines.push('Sessions: serve this over https (a TLS proxy sending X-Forwarded-Proto): on plain http the cookie cannot be Secure');
    print(`\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
  };
  const fork = () => {
    const worker = cluster.fork(workerEnv);
    workers.add(worker);
    worker.on('message', (raw: unknown) => {
      const message = readClusterMessage(raw);
      if (message?.type === 'ops-console:revoke') spread(worker, message);
      if (message?.type === 'ops-console:revoked') heard(message.id, worker);
      if (message?.type === 'ops-console:hello') hello(worker);
      if (message?.type === 'ops-console:listening' && !listening) {
        listening = true;
        banner(message.url);
      }
    });
    worker.on('exit', (code) => {
      workers.delete(worker);
      hearing.delete(worker);
      // Nothing more to hear from it.
      for (const id of [...spreading.keys()]) heard(id, worker);
      if (stopping) {
        if (workers.size === 0) void finish(0);
        return;
      }
      // A worker that could not start (a taken port, a bad build) would fail again: stop with it.
      if (!listening) {
        stopping = true;
        for (const other of workers) other.process.kill('SIGKILL');
        void finish(code === 0 ? 1 : code);
        return;
      }
      stderrLog(`A worker ended (exit code ${code}); starting another`);
      fork();
    });
  };
  const finish = async (code: number) => {
    await stopDelivering().catch(() => undefined);
    await archive.stop().catch(() => undefined);
    await link?.close();
    process.exit(code);
  };
  for (let i = 0; i < count; i++) fork();

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      for (const worker of workers) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    stderrLog(`${signal}: the workers finish the requests in flight, then exit`);
    if (workers.size === 0) void finish(0);
    for (const worker of workers) if (worker.isConnected()) worker.send({ type: 'ops-console:shutdown' } satisfies ClusterMessage);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
