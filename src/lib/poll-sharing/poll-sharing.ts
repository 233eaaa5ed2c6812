import type { QueryClient, QueryKey, QueryState } from '@tanstack/react-query';
import * as z from 'zod/mini';

// Who runs the poll timer of a query key. In one tab, the first observer that joins a key runs it
// (at the pace of the most urgent observer) and the others only read the cache. Across tabs signed
// in with the same key, the tab holding the key's Web Lock polls and shares each result over a
// BroadcastChannel; the lock is held only while the tab is visible, so a hidden tab hands polling to
// a visible one, and when every tab is hidden nothing polls. Without Web Locks or BroadcastChannel
// (or Web Crypto to name them) each tab polls for itself.

/** Milliseconds to the next poll, or false for none. */
export type PollDelay = number | false;

/** One observer's wish for one key; a method, so observers of differently typed queries fit. */
export interface PollWish {
  delay(state: QueryState<unknown, unknown>): PollDelay;
  /** While a live stream brings the changes (setLive): 'pause' (the default) stops this poll, 'keep' goes on. */
  whileLive?: 'pause' | 'keep';
}

/** One component's observers, each on its own key. */
export interface PollMember {
  /** Joins the keys listed, leaves the others, and takes the observers' latest wishes. */
  sync: (wishes: ReadonlyMap<string, PollWish>) => void;
  leave: () => void;
  /** The refetch interval this member's observer of `queryHash` should run: false unless it runs the timer. */
  interval: (queryHash: string, state: QueryState<unknown, unknown>) => PollDelay;
  /** Changes whenever this member starts or stops running a timer, or another member's wish changes its pace. */
  snapshot: () => string;
}

export interface PollSharing {
  member: () => PollMember;
  subscribe: (listener: () => void) => () => void;
  /** Shares with the other tabs of this key namespace (a hash of the API key); null: each tab on its own. */
  open: (namespace: string | null) => void;
  /** Signing out: releases every lock and closes the channel. */
  close: () => void;
  /** A live stream brings the changes (docs/live.md): polls that may pause, pause; false: today's polling again. */
  setLive: (live: boolean) => void;
  /** Whether this tab polls `queryHash` now (test and bench visibility into the mechanism). */
  ownsKey: (queryHash: string) => boolean;
  dispose: () => void;
}

/**
 * The schema a query's data must pass when it arrives from another tab; null: the query is never
 * shared. The app decides (its query factories declare it in `meta`); this layer only asks.
 */
export type SharedSchemaFor = (query: { queryKey: QueryKey; meta?: unknown }) => z.ZodMiniType | null;

export interface PollSharingOptions {
  queryClient: QueryClient;
  schemaFor: SharedSchemaFor;
  /** Injected by tests; default: the browser's, where it has them. */
  locks?: LockManager | undefined;
  channel?: ((name: string) => BroadcastChannel) | undefined;
  document?: VisibilitySource | undefined;
}

export type VisibilitySource = Pick<Document, 'visibilityState' | 'addEventListener' | 'removeEventListener'>;

const SharedResultSchema = z.object({
  queryKey: z.array(z.unknown()),
  dataUpdatedAt: z.number(),
  data: z.unknown(),
});

interface Claim {
  member: object;
  wish: PollWish;
  /** The pace this wish asked for when last seen, to tell the timer's runner when it changes. */
  lastDelay: PollDelay | undefined;
}

interface KeyState {
  claims: Claim[];
  lock: 'none' | 'waiting' | 'held';
  attempt: number;
  abort: AbortController | undefined;
  release: (() => void) | undefined;
  /** Bumped when a wish other than the runner's changes pace, so the runner recomputes its interval. */
  version: number;
}

type Scope = { kind: 'local' } | { kind: 'waiting' } | { kind: 'shared'; lockPrefix: string; channel: BroadcastChannel };

function browserLocks(): LockManager | undefined {
  return typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : undefined;
}

function browserChannel(): ((name: string) => BroadcastChannel) | undefined {
  return typeof BroadcastChannel === 'function' ? (name) => new BroadcastChannel(name) : undefined;
}

export function createPollSharing(options: PollSharingOptions): PollSharing {
  const { queryClient, schemaFor } = options;
  const locks = 'locks' in options ? options.locks : browserLocks();
  const makeChannel = 'channel' in options ? options.channel : browserChannel();
  const doc = options.document ?? (typeof document === 'undefined' ? undefined : document);
  const canShare = locks !== undefined && makeChannel !== undefined;

  const keys = new Map<string, KeyState>();
  const listeners = new Set<() => void>();
  let scope: Scope = canShare ? { kind: 'waiting' } : { kind: 'local' };
  let live = false;

  const notify = () => listeners.forEach((l) => l());
  const visible = () => doc?.visibilityState !== 'hidden';

  const owns = (state: KeyState) => scope.kind === 'local' || (scope.kind === 'shared' && state.lock === 'held');

  function drop(state: KeyState): void {
    state.attempt++;
    state.abort?.abort();
    state.release?.();
    state.abort = undefined;
    state.release = undefined;
    state.lock = 'none';
  }

  function acquire(queryHash: string, state: KeyState, lockPrefix: string): void {
    if (!locks) return;
    const attempt = ++state.attempt;
    const abort = new AbortController();
    state.abort = abort;
    state.lock = 'waiting';
    locks
      .request(`${lockPrefix}${queryHash}`, { signal: abort.signal }, () => {
        // Granted after this tab gave the key up (hidden, unmounted, signed out): hand it straight on.
        if (state.attempt !== attempt) return undefined;
        return new Promise<void>((resolve) => {
          state.lock = 'held';
          state.release = resolve;
          notify();
        });
      })
      .catch(() => undefined); // Aborted while waiting.
  }

  /** Holds the lock of every key with observers while the tab is visible; lets go of the rest. */
  function reconcile(): void {
    let changed = false;
    for (const [queryHash, state] of keys) {
      const want = scope.kind === 'shared' && state.claims.length > 0 && visible();
      if (want && state.lock === 'none' && scope.kind === 'shared') acquire(queryHash, state, scope.lockPrefix);
      else if (!want && state.lock !== 'none') {
        changed ||= state.lock === 'held';
        drop(state);
      }
      if (state.claims.length === 0 && state.lock === 'none') keys.delete(queryHash);
    }
    if (changed) notify();
  }

  const onVisibility = () => reconcile();
  doc?.addEventListener('visibilitychange', onVisibility);

  // Every fetched result of a shared key goes to the other tabs (a poll, "Check now", a refetch on focus).
  const unsubscribeCache = queryClient.getQueryCache().subscribe((event) => {
    if (scope.kind !== 'shared' || event.type !== 'updated' || event.action.type !== 'success' || event.action.manual) return;
    const query = queryClient.getQueryCache().get(event.query.queryHash);
    if (!query) return;
    const { queryKey, state } = query;
    if (!schemaFor(query)) return;
    try {
      scope.channel.postMessage({ queryKey, data: state.data, dataUpdatedAt: state.dataUpdatedAt });
    } catch {
      // Not cloneable: the other tabs poll for themselves at their next turn.
    }
  });

  function receive(message: unknown): void {
    const envelope = SharedResultSchema.safeParse(message);
    if (!envelope.success) return;
    const { queryKey, data, dataUpdatedAt } = envelope.data;
    const query = queryClient.getQueryCache().find({ queryKey, exact: true });
    // Only queries this tab holds, and only a newer result than the one it has.
    if (!query || query.state.dataUpdatedAt >= dataUpdatedAt) return;
    // The other tab is another program on the wire: its data passes the same schema as a response.
    const parsed = schemaFor(query)?.safeParse(data);
    if (!parsed?.success) return;
    queryClient.setQueryData(queryKey, parsed.data, { updatedAt: dataUpdatedAt });
  }

  function combinedDelay(state: KeyState, queryState: QueryState<unknown, unknown>): PollDelay {
    let delay: PollDelay = false;
    for (const claim of state.claims) {
      const d = claim.wish.delay(queryState);
      claim.lastDelay = d;
      if (d !== false && d > 0 && (delay === false || d < delay)) delay = d;
    }
    return delay;
  }

  function member(): PollMember {
    const self = {};
    const mine = new Map<string, Claim>();

    function leaveKey(queryHash: string): void {
      const state = keys.get(queryHash);
      mine.delete(queryHash);
      if (!state) return;
      state.claims = state.claims.filter((c) => c.member !== self);
    }

    return {
      sync(wishes) {
        let changed = false;
        for (const queryHash of [...mine.keys()]) {
          if (!wishes.has(queryHash)) {
            leaveKey(queryHash);
            changed = true;
          }
        }
        for (const [queryHash, wish] of wishes) {
          const claim = mine.get(queryHash);
          if (claim) {
            claim.wish = wish;
            const state = keys.get(queryHash);
            if (!state || state.claims[0] === claim) continue;
            // Another observer runs this key's timer: tell it only when this wish changes the pace.
            const queryState = queryClient.getQueryCache().get(queryHash)?.state;
            const delay = queryState ? wish.delay(queryState) : undefined;
            if (delay !== claim.lastDelay) {
              claim.lastDelay = delay;
              state.version++;
              changed = true;
            }
            continue;
          }
          const fresh: Claim = { member: self, wish, lastDelay: undefined };
          mine.set(queryHash, fresh);
          const state = keys.get(queryHash) ?? { claims: [], lock: 'none', attempt: 0, abort: undefined, release: undefined, version: 0 };
          keys.set(queryHash, state);
          state.claims.push(fresh);
          changed = true;
        }
        if (changed) {
          reconcile();
          notify();
        }
      },
      leave() {
        if (mine.size === 0) return;
        for (const queryHash of [...mine.keys()]) leaveKey(queryHash);
        reconcile();
        notify();
      },
      interval(queryHash, queryState) {
        const state = keys.get(queryHash);
        const claim = mine.get(queryHash);
        if (!state || !claim || state.claims[0] !== claim || !owns(state)) return false;
        if (live && state.claims.every((c) => c.wish.whileLive !== 'keep')) return false;
        return combinedDelay(state, queryState);
      },
      snapshot() {
        let out = live ? 'L;' : '';
        for (const [queryHash, claim] of mine) {
          const state = keys.get(queryHash);
          out += state && state.claims[0] === claim && owns(state) ? `R${state.version};` : '-;';
        }
        return out;
      },
    };
  }

  function close(): void {
    for (const state of keys.values()) drop(state);
    if (scope.kind === 'shared') {
      scope.channel.onmessage = null;
      scope.channel.close();
    }
    scope = canShare ? { kind: 'waiting' } : { kind: 'local' };
    notify();
  }

  return {
    member,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    open(namespace) {
      close();
      if (namespace === null || !makeChannel || !canShare) {
        scope = { kind: 'local' };
      } else {
        // Both names carry a hash of the key, never the key; the channel carries results, never the key.
        const channel = makeChannel(`ops-console.poll.${namespace}`);
        channel.onmessage = (event: MessageEvent) => receive(event.data);
        scope = { kind: 'shared', lockPrefix: `ops-console.poll.${namespace}:`, channel };
      }
      reconcile();
      notify();
    },
    close,
    setLive(next) {
      if (live === next) return;
      live = next;
      notify();
    },
    ownsKey(queryHash) {
      const state = keys.get(queryHash);
      return state !== undefined && state.claims.length > 0 && owns(state);
    },
    dispose() {
      close();
      unsubscribeCache();
      doc?.removeEventListener('visibilitychange', onVisibility);
      listeners.clear();
    },
  };
}
