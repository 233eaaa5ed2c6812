// Which queue the embedded store's worker puts a statement in (pglite-worker.ts; docs/architecture.md, "The
// store"): what runs inside `inLane('heavy', …)` (insights, exports, searches over the whole record) waits behind
// a request's reads, and upkeep behind both. Carried by AsyncLocalStorage, so the tables' modules stay as they are;
// a Postgres server has connections enough and ignores it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Lane } from './pglite-protocol';

const lanes = new AsyncLocalStorage<Lane>();

export function inLane<T>(lane: Lane, fn: () => Promise<T>): Promise<T> {
  return lanes.run(lane, fn);
}

/** The lane of the code running now ('read' outside any). */
export function currentLane(): Lane {
  return lanes.getStore() ?? 'read';
}
