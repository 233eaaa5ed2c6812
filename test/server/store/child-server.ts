// The store's fault tests run the console as a child process (fixtures/store-server.ts): what it prints is
// kept, its exit is a promise, and requests go on fresh connections to the port its banner names.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import http from 'node:http';
import type { Readable } from 'node:stream';
import { childScript } from '../../support/child-scripts';
import { rawRequest, type RawRequest, type RawResponse } from '../http-helpers';

/** The simulator's demo key in every child: sign-in checks it against the simulator's /auth. */
export const CHILD_KEY = 'store-faults-key-000000000000000000';
const SESSION_SECRET = 'store-faults-session-secret-0000000000000';
/** How long a child may take to print its banner (the first waits for the build of the child servers). */
const START_TIMEOUT_MS = 30_000;

export interface SpawnedServer {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything it printed so far, stdout and stderr together. */
  output: () => string;
  /** Its exit code (a signal's end: null). */
  exited: Promise<number | null>;
}

/** The server started in a child process on PORT=0; `env` is added to the test's own environment. */
export async function spawnServer(env: NodeJS.ProcessEnv): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [await childScript('store-server')], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      WEB_CONCURRENCY: '1',
      SIM_API_KEY: CHILD_KEY,
      API_URL: '',
      SESSION_SECRET,
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const read = (chunk: Buffer) => void (output += chunk.toString());
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export interface ChildServer extends SpawnedServer {
  port: number;
  origin: string;
  request: (request: RawRequest) => Promise<RawResponse>;
  /** Ends it at once (SIGKILL), if it still runs. */
  kill: () => Promise<void>;
}

/** A child server that printed its banner (rejects with its output if it exits first). */
export async function startChildServer(env: NodeJS.ProcessEnv): Promise<ChildServer> {
  const spawned = await spawnServer(env);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${START_TIMEOUT_MS} ms:\n${spawned.output()}`)), START_TIMEOUT_MS);
    const look = () => {
      const found = /Ops Console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(spawned.output())?.[1];
      if (!found) return;
      clearTimeout(timer);
      resolve(Number(found));
    };
    spawned.child.stdout.on('data', look);
    void spawned.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${spawned.output()}`));
    });
  });
  return {
    ...spawned,
    port,
    origin: `http://127.0.0.1:${port}`,
    request: (request) => rawRequest(port, { ...request, headers: { connection: 'close', ...request.headers } }),
    async kill() {
      if (spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
      spawned.child.kill('SIGKILL');
      await spawned.exited;
    },
  };
}

/** Signs in with `key` (JSON, as the key screen does): the session's cookie (`name=value`). */
export async function signIn(server: Pick<ChildServer, 'request' | 'origin'>, key = CHILD_KEY): Promise<string> {
  const answer = await server.request({
    method: 'POST',
    path: '/session',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: server.origin },
    body: JSON.stringify({ key }),
  });
  const cookie = answer.headers['set-cookie']?.[0]?.split(';')[0];
  if (answer.status !== 200 || !cookie) throw new Error(`sign-in answered ${answer.status}: ${answer.body}`);
  return cookie;
}

/** Signs the session out: the answer's status. */
export async function signOut(server: Pick<ChildServer, 'request' | 'origin'>, cookie: string): Promise<number> {
  return (await server.request({ method: 'POST', path: '/session/sign-out', headers: { cookie, origin: server.origin, accept: 'application/json' } })).status;
}

/** Keeps the session's key as an archive source (the collector then reads it into the store): the answer's status. */
export async function keepHistory(server: Pick<ChildServer, 'request' | 'origin'>, cookie: string): Promise<RawResponse> {
  return server.request({
    method: 'POST',
    path: '/archive/sources',
    headers: { cookie, origin: server.origin, 'content-type': 'application/json', accept: 'application/json' },
    body: '{}',
  });
}

/** What /healthz answered while it was watched: each answer's status, or why none came ("timeout", an error code). */
export interface HealthTally {
  polls: number;
  answers: Map<string, number>;
  slowestMs: number;
}

/** How long one /healthz may take before it counts as unanswered. */
const HEALTH_TIMEOUT_MS = 2_000;

function healthOnce(port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', headers: { connection: 'close' }, timeout: HEALTH_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', (error) => resolve(error.message));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Asks /healthz every `intervalMs` (on a fresh connection each time) until stopped: what it answered. */
export function watchHealth(port: number, intervalMs: number): { stop: () => Promise<HealthTally> } {
  const tally: HealthTally = { polls: 0, answers: new Map(), slowestMs: 0 };
  const stopped = new AbortController();
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      const started = performance.now();
      const answer = await healthOnce(port);
      const took = performance.now() - started;
      tally.polls += 1;
      tally.answers.set(answer, (tally.answers.get(answer) ?? 0) + 1);
      tally.slowestMs = Math.max(tally.slowestMs, took);
      if (took < intervalMs) await new Promise((resolve) => setTimeout(resolve, intervalMs - took));
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      return tally;
    },
  };
}

/** Asks `probe` every 20 ms until it gives a value (returned), or fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
