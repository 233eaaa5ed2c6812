import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

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

export interface PreviewServer {
  origin: string;
  /** Ends the whole process group (npx, vite and anything they started); safe to call twice. */
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

/** `vite preview` of dist/ on a free loopback port, in its own process group so it can be ended whole. */
export async function startPreview(env: NodeJS.ProcessEnv): Promise<PreviewServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
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
  };

  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`vite preview exited early (${child.exitCode}):\n${output.slice(-4_000)}`);
      try {
        const response = await fetch(`${origin}/`);
        if (response.ok) break;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`vite preview did not answer on ${origin} within 60 s:\n${output.slice(-4_000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, stop };
}
