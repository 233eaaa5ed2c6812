// A throwaway Postgres server for the store's tests: Debian's initdb + pg_ctl (any version under
// /usr/lib/postgresql/*/bin) in a temp folder, on a free port, its socket in that folder too. Postgres
// refuses to run as root, so as root it runs as the `postgres` user (runuser). One cluster per test run:
// the first file that asks starts it (a lock folder makes it once across Vitest's workers), every file
// gets a database of its own, and the global teardown (postgres-global-setup.ts) stops and removes it.
// A test that stops or crashes its server makes a cluster of its own instead (ownPostgres).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The newest Debian Postgres's bin folder, or undefined when none is installed. */
export function postgresBin(): string | undefined {
  if (!existsSync(POSTGRES_ROOT)) return undefined;
  const versions = readdirSync(POSTGRES_ROOT)
    .filter((name) => existsSync(path.join(POSTGRES_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(POSTGRES_ROOT, versions[0], 'bin');
}

const asRoot = process.getuid?.() === 0;

async function runAsOwner(command: string, args: string[]): Promise<void> {
  if (asRoot) await run('runuser', ['-u', 'postgres', '--', command, ...args]);
  else await run(command, args);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The run folder, made usable by the user Postgres runs as. */
export async function preparePostgresDir(dir: string): Promise<void> {
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
}

/** initdb in `dir`/data, then `pg_ctl start` on a free port: the server's postgres:// URL (its `postgres` database). */
async function startCluster(dir: string, bin: string): Promise<string> {
  const data = path.join(dir, 'data');
  await runAsOwner(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  await pgCtlStart(dir, bin, port);
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

/** `pg_ctl start` of `dir`'s cluster on `port`, its socket in `dir`; resolves once it takes connections. */
async function pgCtlStart(dir: string, bin: string, port: number): Promise<void> {
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  await runAsOwner(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-o', options, '-l', path.join(dir, 'postgres.log'), '-w', 'start']);
}

/** A cluster one test file owns: it stops, crashes and starts it without disturbing the run's shared one. */
export interface OwnPostgres {
  /** The URL of its database made for the test (`postgres://postgres@127.0.0.1:<port>/<database>`). */
  url: string;
  start: () => Promise<void>;
  /** `immediate`: as a crash (every backend ended at once, no checkpoint; the next start recovers). */
  stop: (mode: 'fast' | 'immediate') => Promise<void>;
  /** Stops it (if running) and removes its folder. */
  remove: () => Promise<void>;
}

/** A new cluster of the caller's own, started, with an empty database `database`. */
export async function ownPostgres(database = 'console'): Promise<OwnPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("No Postgres server: install Debian's postgresql package (initdb under /usr/lib/postgresql/*/bin).");
  const dir = await mkdtemp(path.join(tmpdir(), 'ops-console-own-pg-'));
  await preparePostgresDir(dir);
  const url = new URL(await startCluster(dir, bin));
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${database}`;
  const port = Number(url.port);
  return {
    url: url.toString(),
    start: () => pgCtlStart(dir, bin, port),
    stop: (mode) => runAsOwner(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', mode, '-w', 'stop']),
    remove: () => stopPostgres(dir),
  };
}

/** Stops the run's cluster, if one was started, and removes its folder. */
export async function stopPostgres(dir: string): Promise<void> {
  const bin = postgresBin();
  const data = path.join(dir, 'data');
  if (bin && existsSync(path.join(data, 'postmaster.pid'))) {
    await runAsOwner(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  }
  await rm(dir, { recursive: true, force: true });
}

async function waitForFile(file: string, deadline: number): Promise<string> {
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
    if (Date.now() > deadline) throw new Error(`The shared Postgres server did not start (no ${file}).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The run's cluster's address, starting it if no file has yet. */
async function clusterUrl(dir: string): Promise<string> {
  const bin = postgresBin();
  if (!bin) throw new Error("No Postgres server: install Debian's postgresql package (initdb under /usr/lib/postgresql/*/bin).");
  const urlFile = path.join(dir, 'url');
  const errorFile = path.join(dir, 'error');
  try {
    await mkdir(path.join(dir, 'lock'));
  } catch {
    const text = await waitForFile(urlFile, Date.now() + 60_000);
    if (text.startsWith('error:')) throw new Error(text);
    return text;
  }
  try {
    const url = await startCluster(dir, bin);
    await writeFile(urlFile, url);
    return url;
  } catch (error) {
    const message = `error: ${error instanceof Error ? error.message : String(error)}`;
    await writeFile(errorFile, message);
    await writeFile(urlFile, message);
    throw error;
  }
}

/** A new empty database on the run's cluster, for one test file: its URL. */
export async function freshDatabase(dir: string): Promise<string> {
  const url = new URL(await clusterUrl(dir));
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}
