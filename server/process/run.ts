// `npm start`: one process, or several instances (docs/deploying.md, "Several processes"). A process is an
// instance: each is built by the one composition root (compose.ts) and shares nothing with the others but
// what a deployment of separate machines would share, a Postgres server (DATABASE_URL: sessions' sign-outs,
// the archive, notifications, the collector's lock) and the API. So several processes need DATABASE_URL;
// the embedded store (PGlite) lives in one process, and with it the console serves from one.
// Without API_URL, the simulated world must be one: the primary (which serves no page) runs the simulator
// on a loopback port, as its own process, and every instance forwards /api/v2 to it as to any API_URL.
// Connections reach the instances through node:cluster; signals end them (no messages between processes).
import cluster, { type Address, type Worker } from 'node:cluster';
import { API_IS_SIMULATOR_ENV, processes, readConfig, type ServerConfig } from '../config';
import { createHttpServer, listen, originOf } from '../http/listen';
import { sendError } from '../http/answers';
import { nodeHandler } from '../http/node-bridge';
import { API_PREFIX, FAULTS_CONTROL_PATH, isApiPath, isFaultControlPath } from '../http/paths';
import { resolveSessionSecret } from '../session/session-secret';
import { describeDatabaseUrl } from '../store/pg-db';
import { processLog } from '../log/logger';
import { bannerLines, formatBanner } from './banner';
import { faultControlEnabled } from './compose';
import { apiBackendOf } from './demo-key';
import { serveBuilt, type BuiltServerOptions } from './serve-built';

/**
 * How a connection reaches an instance: each accepts its own (cluster.SCHED_NONE), unless the operator asks
 * for Node's round-robin with NODE_CLUSTER_SCHED_POLICY=rr. Either way a busy process takes at most one new
 * connection per event-loop turn (libuv accepts one per turn since 1.45, libuv/libuv#3696), and a turn of a
 * process serving 100 busy connections lasts 50–150 ms. Round-robin adds a wait on top: the primary hands an
 * instance its next connection only once that one has taken the last: of 200 connections opened at once, the
 * last was handed over 3–4 s after the first, every run (slowest answer 5–7 s in 7 of 7). Accepting in the
 * instances, a burst that finds them idle is taken in one go (100/100 within 15 ms). Turns are kept short
 * under load by starting requests a few per turn (http/turn-budget.ts).
 */
export function schedulingPolicy(env: NodeJS.ProcessEnv): typeof cluster.schedulingPolicy {
  return env.NODE_CLUSTER_SCHED_POLICY === 'rr' ? cluster.SCHED_RR : cluster.SCHED_NONE;
}

/** What one process serves (serveBuilt; a test's own server in test/server/process/fixtures). */
export type Serve = (clientDir: string, options?: BuiltServerOptions) => Promise<void>;

export async function runServer(clientDir: string, env: NodeJS.ProcessEnv = process.env, serve: Serve = serveBuilt): Promise<void> {
  if (cluster.isWorker) {
    // The primary is gone (killed): an instance does not outlive it.
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    await serve(clientDir, { instance: true });
    return;
  }
  let config: ServerConfig;
  try {
    config = readConfig(env);
  } catch (error) {
    processLog(`Could not start: ${error instanceof Error ? error.message : String(error)}`, { event: 'process.start_failed', level: 'fatal' });
    process.exit(1);
  }
  const { count, note } = processes(config);
  if (count === 1) await serve(clientDir, { processNote: note });
  else await runInstances(count, config, env);
}

/** The simulator in this process on a loopback port, as an API the instances forward to; with its fault control when mounted. */
export async function serveSimulator(config: ServerConfig) {
  const backend = await apiBackendOf(config, processLog);
  const api = nodeHandler(backend.fetch);
  const faults = faultControlEnabled('production', config) ? backend.faultControl : undefined;
  const server = createHttpServer();
  server.on('request', (req, res) => {
    if (!isApiPath(req.url) && !(isFaultControlPath(req.url) && faults)) {
      sendError(res, 404, 'Not found');
      return;
    }
    const answer = faults && isFaultControlPath(req.url) ? faults(req, res) : api(req, res);
    answer.catch(() => {
      sendError(res, 500, 'Internal error in the simulator.');
    });
  });
  const origin = originOf(await listen(server, '127.0.0.1', 0), '127.0.0.1').replace(/\/$/, '');
  return {
    apiUrl: `${origin}${API_PREFIX}`,
    banner: [...backend.banner, `Simulator: in the primary process at ${origin}${API_PREFIX}; every instance forwards to it`],
    faultControl: faults ? `${origin}${FAULTS_CONTROL_PATH}` : undefined,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await backend.close?.();
    },
  };
}

async function runInstances(count: number, config: ServerConfig, env: NodeJS.ProcessEnv): Promise<void> {
  // Made (or read) once here, so every instance finds the same one in DATA_DIR.
  const secret = await resolveSessionSecret({ configured: config.sessionSecret, dataDir: config.dataDir });
  const simulator = config.apiUrl ? undefined : await serveSimulator(config);
  const workerEnv = simulator ? { API_URL: simulator.apiUrl, [API_IS_SIMULATOR_ENV]: '1' } : {};
  const backendLines = simulator?.banner ?? ['Mode: forwarding proxy (no simulator)', `Forwarding ${API_PREFIX} to ${config.apiUrl ?? ''}`];

  cluster.schedulingPolicy = schedulingPolicy(env);
  const workers = new Set<Worker>();
  let stopping = false;
  let listening = false;
  const finish = async (code: number) => {
    await simulator?.close();
    process.exit(code);
  };
  cluster.on('listening', (_worker, address: Address) => {
    if (listening) return;
    listening = true;
    const url = originOf({ address: address.address, port: address.port, family: '' }, config.host);
    const lines = bannerLines({
      url,
      config,
      backend: backendLines,
      faultControl: simulator?.faultControl,
      secret,
      store: config.databaseUrl ? describeDatabaseUrl(config.databaseUrl) : '',
      instances: count,
    });
    process.stdout.write(`${formatBanner(lines)}\n`);
  });
  const fork = () => {
    const worker = cluster.fork(workerEnv);
    workers.add(worker);
    worker.on('exit', (code) => {
      workers.delete(worker);
      if (stopping) {
        if (workers.size === 0) void finish(0);
        return;
      }
      // An instance that could not start (a taken port, a bad build) would fail again: stop with it.
      if (!listening) {
        stopping = true;
        for (const other of workers) other.process.kill('SIGKILL');
        void finish(code === 0 ? 1 : code);
        return;
      }
      processLog(`An instance ended (exit code ${code}); starting another`, { event: 'process.instance_ended', level: 'error', exit_code: code });
      fork();
    });
  };
  for (let i = 0; i < count; i++) fork();

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      for (const worker of workers) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    processLog(`${signal}: the instances finish the requests in flight, then exit`, { event: 'shutdown.signal', signal });
    if (workers.size === 0) void finish(0);
    // Each drains as a single process does (compose.ts's stop); Ctrl-C reaches them as a group already.
    for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
