import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import type { BrowserContext } from '@playwright/test';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The environment the console is built and served with: the embedded simulator, never a real API. */
export function simulatorEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.API_URL;
  return env;
}

/** Runs a command to completion, keeping its output for the error message if it fails. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.slice(-4_000)}`));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ConsoleServer {
  origin: string;
  /** The server process, for its memory. */
  pid: number;
  /** Ends the server (SIGTERM, then SIGKILL if it lingers); safe to call twice. */
  stop: () => Promise<void>;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * The console's own server over dist/ (`npm start` without the build), on a free loopback port, in its own
 * process group; `nodeArgs` go to node before the entry (the load test's heap probe).
 */
export async function startConsole(env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = [], given?: number): Promise<ConsoleServer> {
  // `given`: the port of an instance that stopped (a restart on its address).
  const port = given ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  // A DATA_DIR of its own, fresh, unless the caller names one: the default (.data/) keeps the demo's world across
  // starts (docs/simulator.md), so a bench run after another, or after `npm start`, met a world whose last hour was
  // hours ago (Activity then shows nothing ended in the last hour, and has no first row to time).
  const ownDataDir = env.DATA_DIR ? undefined : mkdtempSync(path.join(tmpdir(), 'ops-console-bench-'));
  const child = spawn(process.execPath, [...nodeArgs, 'dist/server/main.js'], {
    env: { ...env, ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}), HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));

  // If this process dies first (an exception, Ctrl-C), the server must not outlive it.
  const lastResort = () => killGroup(child, 'SIGKILL');
  process.on('exit', lastResort);

  const stop = async () => {
    process.off('exit', lastResort);
    killGroup(child, 'SIGTERM');
    const timedOut = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 5_000))]);
    if (timedOut) {
      killGroup(child, 'SIGKILL');
      await exited;
    }
    // What the server printed (its banner, warnings, a --trace-gc), kept when asked: the bench prints only figures.
    if (process.env.BENCH_SERVER_LOG) appendFileSync(process.env.BENCH_SERVER_LOG, output);
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the console server exited early (${child.exitCode}):\n${output.slice(-4_000)}`);
      try {
        const response = await fetch(`${origin}/healthz`);
        if (response.ok) break;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`the console server did not answer on ${origin} within 60 s:\n${output.slice(-4_000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, pid: child.pid ?? 0, stop };
}

/** Signs a browser context in as the key screen would: one POST of the key; the context keeps the cookie. Returns the session's fingerprint. */
export async function signInContext(context: BrowserContext, origin: string, apiKey: string): Promise<string> {
  const response = await context.request.post(`${origin}/session`, { data: { key: apiKey } });
  if (!response.ok()) throw new Error(`sign-in failed: ${response.status()} ${await response.text()}`);
  return ((await response.json()) as { fingerprint: string }).fingerprint;
}

/** The session cookie for `apiKey`, for clients that are not a browser (the load test). */
export async function sessionCookie(origin: string, apiKey: string): Promise<string> {
  const response = await fetch(`${origin}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: apiKey }) });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (!response.ok || !cookie) throw new Error(`sign-in failed: ${response.status}`);
  return cookie;
}
