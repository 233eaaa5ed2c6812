// The embedded driver: PGlite (Postgres compiled to WebAssembly) over a folder of DATA_DIR, run in a worker
// thread of this process (pglite-worker.ts) so that its WebAssembly never holds the server's event loop
// (docs/architecture.md, "The store"). The same SQL as before crosses as messages; a transaction's fn runs here,
// statement by statement, while the worker holds the store for it. One process may open a folder
// (data-dir-lock.ts): several processes share a Postgres server.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { threadId, Worker } from 'node:worker_threads';
import { StoreUnavailableError, type Db, type Queryable, type SqlValue, type UpkeepStats } from './db';
import { currentLane } from './lanes';
import { uncrossError, type FromWorker, type ToWorker, type WorkerData } from './pglite-protocol';

/** The worker's module beside this one; the server's build (vite.config.ts) puts the built file's path here. */
const WORKER_MODULE = './pglite-worker.ts';

/** How long nothing but upkeep must have waited before an upkeep statement (VACUUM, ANALYZE) starts. */
export const UPKEEP_QUIET_MS = 250;
/** How long an upkeep statement waits for that quiet at most (under constant load): then it starts once nothing else waits. */
export const UPKEEP_MAX_WAIT_MS = 10 * 60_000;
/**
 * About how many operations one statement of a heavy read holds (Db.heavyStatementRows): some 20–30 ms of the
 * worker's time each at a million operations, so a request's read that arrives meanwhile waits that long at most;
 * fewer rows a statement cost more statements (4,000: 44 statements for every project's 90 days, a third slower)
 * (docs/benchmarks.md, "The embedded store never stalls the server").
 */
export const HEAVY_STATEMENT_ROWS = 12_000;

export interface PgliteOptions {
  /**
   * What a fresh folder starts as (WorkerData's image): undefined, the build's image for the installed PGlite
   * (dist/server/store-image-<version>.tar.gz, written by `npm run build`) if there is one; null, PGlite's initdb.
   */
  image?: string | null;
  upkeepQuietMs?: number;
  /** Aborted while it opens: the worker is ended at once (a fresh store's initdb is not waited for: index.ts). */
  signal?: AbortSignal;
  /** Given the worker thread once it is started (a test ends it, to see the store say so). */
  onWorker?: (worker: Worker) => void;
}

const run = promisify(execFile);

/** PGlite's dist folder, where its WebAssembly is. */
function pgliteDist(): string {
  return path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
}

/**
 * The worker's module. From the build, dist/server/pglite-worker.js, which vite.config.ts writes as an entry of the
 * server's build and names here. From the source (Vitest, tsx), the TypeScript file beside this one bundled once a
 * process by esbuild, PGlite left an import, into a file named by its content under node_modules/.cache, where the
 * import is found: loaded through tsx in each worker instead, it cost 0.8 CPU-seconds a store (docs/testing.md).
 */
let workerModule: Promise<URL> | undefined;
function workerSource(): Promise<URL> {
  // Not a literal `new URL('…', import.meta.url)`: Vite makes that an asset's address for a page (the DOM tests).
  const source = new URL(WORKER_MODULE, import.meta.url);
  if (!source.pathname.endsWith('.ts') || !import.meta.url.endsWith('.ts')) return Promise.resolve(source);
  workerModule ??= bundleFromSource(source);
  return workerModule;
}

async function bundleFromSource(source: URL): Promise<URL> {
  // esbuild's command, not its API: the DOM tests run the server in jsdom, whose TextEncoder esbuild's API refuses.
  const esbuild = createRequire(import.meta.url).resolve('esbuild/bin/esbuild');
  const flags = ['--bundle', '--packages=external', '--platform=node', '--format=esm', '--target=node20', '--log-level=error'];
  const { stdout: code } = await run(process.execPath, [esbuild, fileURLToPath(source), ...flags], { maxBuffer: 16 * 1024 * 1024 });
  // node_modules/@electric-sql/pglite/dist: its node_modules/.cache.
  const folder = path.resolve(pgliteDist(), '../../../.cache/ops-console-pglite-worker');
  const file = path.join(folder, `${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  await mkdir(folder, { recursive: true });
  // Written whole, then renamed: another process may be loading the same file.
  const partial = `${file}.${process.pid}-${threadId}`;
  await writeFile(partial, code);
  await rename(partial, file);
  return pathToFileURL(file);
}

/**
 * PGlite's Postgres, compiled once a process and handed to every worker it starts (the workers share the compiled
 * code): compiled in each worker, it cost half a CPU-second a store. Compiled in a thread of its own and handed
 * back (compileOffThread). Undefined if it cannot be read or compiled; the worker then compiles its own (and says
 * so, if that fails too).
 */
let compiled: Promise<WebAssembly.Module | undefined> | undefined;
function pgliteModule(): Promise<WebAssembly.Module | undefined> {
  compiled ??= compileOffThread(path.join(pgliteDist(), 'pglite.wasm')).catch(() => undefined);
  return compiled;
}

/**
 * The WebAssembly module in `file`, compiled in a short-lived thread: WebAssembly.compile does part of its work on the
 * thread that calls it, which for PGlite's 9 MB held the server's event loop 50–60 ms just after it began to listen
 * (docs/benchmarks.md, "The embedded store never stalls the server"). A compiled module crosses threads whole.
 */
function compileOffThread(file: string): Promise<WebAssembly.Module> {
  const source = `const { parentPort, workerData } = require('node:worker_threads');
    require('node:fs/promises').readFile(workerData).then((bytes) => WebAssembly.compile(bytes)).then((module) => parentPort.postMessage(module));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: file });
    worker.once('message', (module: WebAssembly.Module) => {
      resolve(module);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The thread compiling ${file} ended (${code}) without it.`)));
  });
}

/** The name of the build's image of a fresh PGlite folder, made by and for this PGlite version. */
export function storeImageName(pgliteVersion: string): string {
  return `store-image-${pgliteVersion}.tar.gz`;
}

/** The build's store image beside the built worker, if the build made one for the installed PGlite; from the source, none. */
async function buildImage(): Promise<string | undefined> {
  const worker = new URL(WORKER_MODULE, import.meta.url);
  if (worker.pathname.endsWith('.ts')) return undefined;
  try {
    const { version } = JSON.parse(await readFile(path.join(pgliteDist(), '..', 'package.json'), 'utf8')) as { version: string };
    const image = fileURLToPath(new URL(storeImageName(version), worker));
    return existsSync(image) ? image : undefined;
  } catch {
    return undefined;
  }
}

async function startWorker(data: WorkerData, image: string | null | undefined): Promise<Worker> {
  const [source, wasmModule, imageFile] = await Promise.all([workerSource(), pgliteModule(), image === undefined ? buildImage() : image]);
  return new Worker(source, { workerData: { ...data, wasmModule, image: imageFile ?? undefined } satisfies WorkerData });
}

interface Pending {
  resolve: (message: Extract<FromWorker, { kind: 'done' }>) => void;
  reject: (error: Error) => void;
}

/** `dir` undefined: in memory (tests). Resolves once PGlite is ready in its worker. */
export async function openPgliteDb(dir: string | undefined, options: PgliteOptions = {}): Promise<Db> {
  const worker = await startWorker({ dir, upkeepQuietMs: options.upkeepQuietMs ?? UPKEEP_QUIET_MS, upkeepMaxWaitMs: UPKEEP_MAX_WAIT_MS }, options.image);
  options.onWorker?.(worker);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: Error | undefined;
  let closed = false;
  // Upkeep statements run, and statements that arrived while one ran and so waited for it: metrics and the bench read them.
  const stats: UpkeepStats = { statements: 0, waited: 0 };

  // A worker that ends (a crash, out of memory) takes the store with it: everything waiting hears so, and every
  // later statement at once, rather than waiting forever.
  const die = (why: string, cause?: unknown) => {
    if (dead) return;
    dead = new StoreUnavailableError(`The console's embedded store stopped: ${why}.`, cause === undefined ? undefined : { cause });
    for (const waiting of pending.values()) waiting.reject(dead);
    pending.clear();
  };

  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: FromWorker) => {
      if (message.kind === 'ready' || message.kind === 'failed') {
        if (message.kind === 'ready') resolve();
        else reject(uncrossError(message.error));
        return;
      }
      if (message.waitedForUpkeep) stats.waited += 1;
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.kind === 'done') waiting.resolve(message);
      else waiting.reject(uncrossError(message.error));
    });
    worker.on('error', (error) => {
      die(error.message, error);
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!closed) die(`its thread exited (code ${code})`);
      reject(dead ?? new StoreUnavailableError('The embedded store was closed while it opened.'));
    });
  });

  const ask = (message: ToWorker, id = message.id): Promise<Extract<FromWorker, { kind: 'done' }>> => {
    if (dead) return Promise.reject(dead);
    if (closed) return Promise.reject(new StoreUnavailableError('The embedded store is closed.'));
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(message);
    });
  };

  const queryable = (tx: number | undefined): Queryable => ({
    // Untyped rows (never[]), as pg's: each table's module names what its query returns.
    async query(text: string, params?: readonly SqlValue[]) {
      const lane = currentLane();
      const answer = await ask({ kind: 'query', id: nextId++, text, params, lane, tx });
      if (lane === 'upkeep') stats.statements += 1;
      return { rows: (answer.rows ?? []) as never[] };
    },
  });

  const abandon = () => {
    closed = true;
    void worker.terminate();
  };
  options.signal?.addEventListener('abort', abandon, { once: true });
  try {
    if (options.signal?.aborted) abandon();
    await ready;
  } catch (error) {
    closed = true;
    await worker.terminate();
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abandon);
  }
  // Once ready, a failure of the thread is said by die() (above); the promise's later rejection is nobody's.
  ready.catch(() => undefined);

  return {
    ...queryable(undefined),
    async transaction(fn) {
      const began = await ask({ kind: 'begin', id: nextId++, lane: currentLane() });
      const tx = began.tx;
      if (tx === undefined) throw new Error('The embedded store did not open a transaction.');
      let result;
      try {
        result = await fn(queryable(tx));
      } catch (error) {
        await ask({ kind: 'end', id: nextId++, tx, commit: false }, -tx).catch(() => undefined);
        throw error;
      }
      await ask({ kind: 'end', id: nextId++, tx, commit: true }, -tx);
      return result;
    },
    heavyStatementRows: HEAVY_STATEMENT_ROWS,
    upkeepStats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      if (!dead) await ask({ kind: 'close', id: nextId++ }).catch(() => undefined);
      closed = true;
      await worker.terminate();
    },
  };
}
