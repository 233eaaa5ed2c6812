// Starts the console's server (production or dev): reads the environment, makes the API backend and
// the session keys, listens on HOST:PORT (strictly: a taken port is an error, not another port), prints
// the start-up banner, and drains on SIGTERM/SIGINT.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiBackend, type ApiBackend } from './api-backend';
import { readConfig, type ServerConfig } from './config';
import { createRequestHandler, type ConsoleServerOptions } from './console-server';
import { FAULTS_CONTROL_PATH } from './node-adapter';
import { createSessions } from './session/sessions';
import { isLoopbackHost } from './session/session-cookie';
import { resolveSessionSecret, secretBannerLine } from './session/session-secret';
import { createDrain, type Drain } from './shutdown';

export type Mode = 'production' | 'dev';

/** What differs between `npm start` and `npm run dev`: where pages and files come from. */
export type ServingParts = Pick<ConsoleServerOptions, 'template' | 'assets' | 'pagesFirst' | 'render' | 'renderDeadlineMs'> & {
  /** Dev: closes Vite with the server. */
  close?: () => Promise<void>;
};

export interface RunningServer {
  server: http.Server;
  url: string;
  config: ServerConfig;
  backend: ApiBackend;
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
}

export async function startServer({ mode, env = process.env, print = (line) => void process.stdout.write(`${line}\n`), log = stderrLog, serving }: StartOptions): Promise<RunningServer> {
  const config = readConfig(env);
  const backend = createApiBackend({ apiUrl: config.apiUrl, simApiKey: config.simApiKey, simHugeProject: config.simHugeProject, simRateLimits: config.simRateLimits, log });
  const secret = await resolveSessionSecret({ configured: config.sessionSecret, dataDir: config.dataDir });
  const sessions = createSessions({ secret: secret.secret });
  const server = http.createServer();
  const drain = createDrain(server);
  const parts = await serving(server, config);
  const faultControl = faultControlEnabled(mode, config);
  server.on(
    'request',
    createRequestHandler({ ...parts, backend, sessions, faultControl, log, withCsp: mode === 'production', draining: () => drain.draining }),
  );
  const address = await listen(server, config.host, config.port);
  const url = consoleUrl(address, config.host);

  const lines = [`Ops Console: ${url}`, ...backend.banner];
  if (faultControl && backend.faultControl) lines.push(`Fault injection: ${FAULTS_CONTROL_PATH} (see README)`);
  const secretLine = secretBannerLine(secret);
  if (secretLine) lines.push(secretLine);
  if (!isLoopbackHost(config.host)) lines.push('Sessions: serve this over https (a TLS proxy sending X-Forwarded-Proto): on plain http the cookie cannot be Secure');
  print(`\n${lines.map((line) => `  ${line}`).join('\n')}\n`);

  const stop = async () => {
    await drain.start();
    await parts.close?.();
  };
  return { server, url, config, backend, drain, stop };
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
