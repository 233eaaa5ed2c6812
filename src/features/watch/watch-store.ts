import * as z from 'zod/mini';
import { OperationSchema, type Operation } from '../../api/schemas';
import { isTerminal, mayBeRetried, newerCopy, statusTone } from '../../model/operation-status';

// The operations a person is watching, with the last copy the console saw of each. App-level state like
// the session: kept in localStorage under a hash of the key (never the key), cleared on sign-out.

export interface WatchEntry {
  operation: Operation;
  projectName?: string | undefined;
  branchName?: string | undefined;
  computeName?: string | undefined;
  /** A page fetched before this moment cannot prove the operation is missing from it. */
  watchedAt: number;
  /** When a read last answered with the operation still in flight: its time so far is counted up to here, never past its end. */
  seenAt?: number | undefined;
}

export interface WatchGroup {
  id: string;
  /** The request that started these operations ("Create branch dev"); none for one watched on its own. */
  title?: string | undefined;
  addedAt: number;
  entries: readonly WatchEntry[];
}

export interface WatchState {
  groups: readonly WatchGroup[];
}

/** `ended`: reached a final status; `failed`: failed and may be retried by the platform. */
export interface SettledEvent {
  kind: 'ended' | 'failed';
  entry: WatchEntry;
  group: WatchGroup;
}

export interface WatchRequest {
  title?: string | undefined;
  projectName?: string | undefined;
  operations: readonly Operation[];
  branchNames?: ReadonlyMap<string, string> | undefined;
  computeNames?: ReadonlyMap<string, string> | undefined;
}

export interface WatchStore {
  getState: () => WatchState;
  subscribe: (listener: () => void) => () => void;
  isWatched: (operationId: string) => boolean;
  watch: (request: WatchRequest) => void;
  unwatch: (operationId: string) => void;
  /** Drops ended operations that did not fail; failures stay until dismissed one by one. */
  clearFinished: () => void;
  /** Newer copies of operations, from wherever the console fetched them. */
  update: (operations: Iterable<Operation>) => void;
  onSettled: (listener: (events: readonly SettledEvent[]) => void) => () => void;
  /** Switches to the list kept for this key hash, keeping anything watched while it was being computed. */
  open: (namespace: string) => void;
  /** Forgets the current key's list, in memory and in storage. */
  signOut: () => void;
}

export const WATCH_STORAGE_PREFIX = 'ops-console.watch.';

const StoredStateSchema = z.object({
  version: z.literal(1),
  groups: z.array(
    z.object({
      id: z.string(),
      title: z.optional(z.string()),
      addedAt: z.number(),
      entries: z.array(
        z.object({
          operation: OperationSchema,
          projectName: z.optional(z.string()),
          branchName: z.optional(z.string()),
          computeName: z.optional(z.string()),
          watchedAt: z.number(),
          seenAt: z.optional(z.number()),
        }),
      ),
    }),
  ),
});

const EMPTY: WatchState = { groups: [] };

/** Ended well (OK, Cancelled, Skipped): what "Clear finished" removes. */
export function isFinishedWithoutError(operation: Operation): boolean {
  return isTerminal(operation.status) && statusTone(operation.status) !== 'danger';
}

function settledKind(previous: Operation, next: Operation): SettledEvent['kind'] | null {
  if (!isTerminal(previous.status) && isTerminal(next.status)) return 'ended';
  if (!mayBeRetried(previous.status) && mayBeRetried(next.status)) return 'failed';
  return null;
}

function readStored(key: string): WatchState {
  try {
    const raw = localStorage.getItem(key);
    if (raw === null) return EMPTY;
    const parsed = StoredStateSchema.safeParse(JSON.parse(raw));
    return parsed.success ? { groups: parsed.data.groups } : EMPTY;
  } catch {
    return EMPTY;
  }
}

function withoutEntries(groups: readonly WatchGroup[], drop: (entry: WatchEntry) => boolean): WatchGroup[] {
  return groups.flatMap((group) => {
    const entries = group.entries.filter((e) => !drop(e));
    if (entries.length === group.entries.length) return [group];
    return entries.length ? [{ ...group, entries }] : [];
  });
}

export function createWatchStore(): WatchStore {
  let state: WatchState = EMPTY;
  let watchedIds = new Set<string>();
  let namespace: string | null = null;
  const listeners = new Set<() => void>();
  const settledListeners = new Set<(events: readonly SettledEvent[]) => void>();

  const storageKey = () => (namespace === null ? null : WATCH_STORAGE_PREFIX + namespace);

  function save(): void {
    const key = storageKey();
    if (key === null) return;
    try {
      if (state.groups.length) localStorage.setItem(key, JSON.stringify({ version: 1, groups: state.groups }));
      else localStorage.removeItem(key);
    } catch {
      // Storage full or disabled: the list then lasts as long as the tab.
    }
  }

  function set(next: WatchState, persist = true): void {
    state = next;
    watchedIds = new Set(next.groups.flatMap((g) => g.entries.map((e) => e.operation.id)));
    if (persist) save();
    listeners.forEach((l) => l());
  }

  // Another tab with the same key changed the list: take its version rather than overwrite it later.
  const onStorage = (event: StorageEvent) => {
    const key = storageKey();
    if (key !== null && event.key === key) set(readStored(key), false);
  };

  return {
    getState: () => state,
    subscribe(listener) {
      if (listeners.size === 0) window.addEventListener('storage', onStorage);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) window.removeEventListener('storage', onStorage);
      };
    },
    isWatched: (operationId) => watchedIds.has(operationId),
    watch({ title, projectName, operations, branchNames, computeNames }) {
      const fresh = operations.filter((op) => !watchedIds.has(op.id));
      const first = fresh[0];
      if (!first) return;
      const now = Date.now();
      const group: WatchGroup = {
        id: `${now.toString(36)}-${first.id}`,
        title,
        addedAt: now,
        entries: fresh.map((operation) => ({
          operation,
          projectName,
          branchName: operation.branch_id ? branchNames?.get(operation.branch_id) : undefined,
          computeName: operation.endpoint_id ? computeNames?.get(operation.endpoint_id) : undefined,
          watchedAt: now,
          seenAt: now,
        })),
      };
      set({ groups: [group, ...state.groups] });
    },
    unwatch(operationId) {
      if (watchedIds.has(operationId)) set({ groups: withoutEntries(state.groups, (e) => e.operation.id === operationId) });
    },
    clearFinished() {
      const groups = withoutEntries(state.groups, (e) => isFinishedWithoutError(e.operation));
      if (groups.length !== state.groups.length || groups.some((g, i) => g !== state.groups[i])) set({ groups });
    },
    update(operations) {
      if (watchedIds.size === 0) return;
      const newest = new Map<string, Operation>();
      for (const op of operations) {
        if (!watchedIds.has(op.id)) continue;
        const seen = newest.get(op.id);
        newest.set(op.id, seen ? newerCopy(seen, op) : op);
      }
      if (newest.size === 0) return;
      const settled: { kind: SettledEvent['kind']; id: string }[] = [];
      const groups = state.groups.map((group) => {
        const entries = group.entries.map((entry) => {
          const fetched = newest.get(entry.operation.id);
          // An older copy (a page loaded earlier) never overwrites a newer one, nor an equal one a final one.
          const next = fetched ? newerCopy(entry.operation, fetched) : entry.operation;
          // Still in flight as of this read: the tray counts its time up to now, and no further until the next read.
          const seenAt = fetched && !isTerminal(next.status) ? Date.now() : entry.seenAt;
          if (next === entry.operation) return seenAt === entry.seenAt ? entry : { ...entry, seenAt };
          const kind = settledKind(entry.operation, next);
          if (kind) settled.push({ kind, id: next.id });
          return { ...entry, operation: next, seenAt };
        });
        return entries.some((e, i) => e !== group.entries[i]) ? { ...group, entries } : group;
      });
      if (groups.every((g, i) => g === state.groups[i])) return;
      set({ groups });
      if (settled.length === 0) return;
      const events = settled.flatMap(({ kind, id }) =>
        groups.flatMap((group) => {
          const entry = group.entries.find((e) => e.operation.id === id);
          return entry ? [{ kind, entry, group }] : [];
        }),
      );
      settledListeners.forEach((l) => l(events));
    },
    onSettled(listener) {
      settledListeners.add(listener);
      return () => settledListeners.delete(listener);
    },
    open(next) {
      if (next === namespace) return;
      // Only what was watched before any key's list was open carries over.
      const carried = namespace === null ? state.groups : [];
      namespace = next;
      const stored = readStored(WATCH_STORAGE_PREFIX + next);
      const storedIds = new Set(stored.groups.flatMap((g) => g.entries.map((e) => e.operation.id)));
      set({ groups: [...withoutEntries(carried, (e) => storedIds.has(e.operation.id)), ...stored.groups] });
    },
    signOut() {
      const key = storageKey();
      if (key !== null) {
        try {
          localStorage.removeItem(key);
        } catch {
          // Nothing was stored, then.
        }
      }
      namespace = null;
      set(EMPTY, false);
    },
  };
}
