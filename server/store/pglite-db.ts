// The embedded driver: PGlite (Postgres compiled to WebAssembly) over a folder of DATA_DIR, run in a worker
// thread of this process (pglite-worker.ts) so that its WebAssembly never holds the server's event loop
// (docs/architecture.md, "The store"). The same SQL as before crosses as messages; a transaction's fn runs here,
// statement by statement, while the worker holds the store for it. One process may open a folder
// (data-dir-lock.ts): several processes share a Postgres server.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError, type Db, type Queryable, type SqlValue, type UpkeepStats } from './db';
import { currentLane } from './lanes';
import { uncrossError, type FromWorker, type ToWorker, type WorkerData } from './pglite-protocol';

/** The worker's module beside this one; the server's build (vite.config.ts) puts the built file's path here. */
const WORKER_MODULE = './pglite-worker.ts';

/** How long nothing but upkeep must have waited before an upkeep statement (VACUUM, ANALYZE) starts. */
export const UPKEEP_QUIET_MS = 250;
/** How long an upkeep statement waits for that quiet at most (under constant load): then it starts once nothing else waits. */
export const UPKEEP_MAX_WAIT_MS = 10 * 60_000;

export interface PgliteOptions {
  upkeepQuietMs?: number;
  /** Aborted while it opens: the worker is ended at once (a fresh store's initdb is not waited for: index.ts). */
  signal?: AbortSignal;
  /** Given the worker thread once it is started (a test ends it, to see the store say so). */
  onWorker?: (worker: Worker) => void;
}

/**
 * The worker's module. From the source (Vitest, tsx), the TypeScript file beside this one, loaded through tsx's
 * loader in the worker; from the build, dist/server/pglite-worker.js, which vite.config.ts writes as an entry of
 * the server's build and names here.
 */
function startWorker(data: WorkerData): Worker {
  // Not a literal `new URL('…', import.meta.url)`: Vite makes that an asset's address for a page (the DOM tests).
  const source = new URL(WORKER_MODULE, import.meta.url);
  if (!source.pathname.endsWith('.ts') || !import.meta.url.endsWith('.ts')) return new Worker(source, { workerData: data });
  // tsx's ESM API (its CommonJS twin registers a loader of the wrong kind here).
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { (tsx.register ?? tsx.default.register)(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}

interface Pending {
  resolve: (message: Extract<FromWorker, { kind: 'done' }>) => void;
  reject: (error: Error) => void;
}

/** `dir` undefined: in memory (tests). Resolves once PGlite is ready in its worker. */
export async function openPgliteDb(dir: string | undefined, options: PgliteOptions = {}): Promise<Db> {
  const worker = startWorker({ dir, upkeepQuietMs: options.upkeepQuietMs ?? UPKEEP_QUIET_MS, upkeepMaxWaitMs: UPKEEP_MAX_WAIT_MS });
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
    upkeepStats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      if (!dead) await ask({ kind: 'close', id: nextId++ }).catch(() => undefined);
      closed = true;
      await worker.terminate();
    },
  };
}
