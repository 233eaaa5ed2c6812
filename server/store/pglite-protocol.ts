// What the main thread and the embedded store's worker thread (pglite-worker.ts) say to each other
// (docs/architecture.md, "The store"). Every message crosses by structured clone: parameters and rows keep their
// Dates, bigints, byte arrays and JSON values; an error crosses as its message and Postgres's fields.
import type { SqlValue } from './db';

/**
 * Which queue a statement waits in: a request's reads first, then the heavy reads (insights, exports, searches
 * over the whole record: server/store/lanes.ts), then upkeep (VACUUM, ANALYZE), which starts only when nothing
 * else waits.
 */
export type Lane = 'read' | 'heavy' | 'upkeep';

export const LANES: readonly Lane[] = ['read', 'heavy', 'upkeep'];

export type ToWorker =
  | { kind: 'query'; id: number; text: string; params: readonly SqlValue[] | undefined; lane: Lane; tx: number | undefined }
  | { kind: 'begin'; id: number; lane: Lane }
  | { kind: 'end'; id: number; tx: number; commit: boolean }
  | { kind: 'close'; id: number };

/** An error's message, name and Postgres's fields (code, detail, constraint, …): the main thread makes an Error of them again. */
export interface CrossedError {
  message: string;
  name: string;
  fields: Record<string, string | number | boolean>;
}

export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'failed'; error: CrossedError }
  | { kind: 'done'; id: number; rows?: unknown[]; tx?: number; waitedForUpkeep: boolean }
  | { kind: 'error'; id: number; error: CrossedError; waitedForUpkeep: boolean };

/** What the worker is started with. `dir` undefined: in memory (tests). */
export interface WorkerData {
  dir: string | undefined;
  /** How long nothing but upkeep must have waited before an upkeep statement starts. */
  upkeepQuietMs: number;
  /** How long an upkeep statement waits for that quiet at most: then it starts as soon as nothing else waits. */
  upkeepMaxWaitMs: number;
  /**
   * PGlite's Postgres, compiled once in the process (pglite-db.ts) and shared with every worker it starts: compiled
   * in each worker, it cost half a CPU-second a store (the tests open hundreds).
   */
  wasmModule?: WebAssembly.Module | undefined;
  /**
   * A fresh folder's first contents: a gzipped tar of a folder PGlite's initdb made (the build's store image,
   * scripts/store-image.js), unpacked in about a second rather than initdb's 3–5 CPU-seconds. Undefined: initdb.
   */
  image?: string | undefined;
}

export function crossError(error: unknown): CrossedError {
  if (!(error instanceof Error)) return { message: String(error), name: 'Error', fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (key === 'message' || key === 'name' || key === 'stack') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  return { message: error.message, name: error.name, fields };
}

/** The Error again, on the main thread: `instanceof Error`, with `code`, `detail`, `constraint`, … as Postgres set them. */
export function uncrossError(crossed: CrossedError): Error {
  const error = new Error(crossed.message);
  Object.assign(error, crossed.fields);
  if (crossed.name !== 'Error') Object.defineProperty(error, 'name', { value: crossed.name, enumerable: false, configurable: true, writable: true });
  return error;
}
