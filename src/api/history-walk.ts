import type { QueryClient } from '@tanstack/react-query';
import { describeProblem, isApiError } from './api-error';
import { compareTimes } from '../lib/format';
import type { NewestRun } from './operation-history';
import { fetchHistoryPage, historyOperations, isKeptParam, OPERATIONS_MAX_LIMIT, operationQueries, type History } from './operations';
import { maySendAgain, retryDelay } from './retry-policy';
import type { Operation } from './schemas';
import { abortError, sleep, type WalkPace } from './walk-pace';

// A walk through a project's whole history, for what the API cannot filter: it loads older pages (the
// platform's largest) into the one history store, from where the loaded pages end, at the pace of
// api/walk-pace.ts, until the history ends, it passes the start of a time range, or it is stopped. The
// screen's filtered table is a view over that store, so matches appear as pages arrive.

/** Walk pages ask for the platform's most: a 20,000-operation history is 20 requests. */
export const WALK_LIMIT = OPERATIONS_MAX_LIMIT;
/** A walk pauses after this many pages (100,000 operations) until the person says to go on. */
export const WALK_PAGES_PER_RUN = 100;
/** Tries of one page (the first included) before the walk stops and offers to go on. */
export const WALK_MAX_TRIES = 6;

/** Why a walk ended by itself: the history's end, the start of the range, or a run's page limit. */
export type WalkEnd = 'end' | 'range' | 'paused';

/** Where a walk stands while it runs: sending, or waiting before sending a failed page again. */
export type WalkActivity = { kind: 'walking' } | { kind: 'waiting'; problem: string; from: number; at: number; rateLimited: boolean };

export interface WalkOptions {
  /** ISO time: the walk ends once the loaded history reaches back past it. */
  from?: string | undefined;
  signal: AbortSignal;
  pace: WalkPace;
  onActivity?: (activity: WalkActivity) => void;
  pagesPerRun?: number;
}

/**
 * The history with a run of older operations (fetched from `fromCursor`) added at its end, so what a
 * walk loads stays loaded. When the history moved on meanwhile ("Load more" added a page, or it
 * started over from the newest ones), only the part of the run that continues it is kept: each
 * operation once, newest first, never across a gap. Returns `history` itself when nothing changes.
 */
export function appendOlder(history: History, run: NewestRun, fromCursor: string): History {
  const last = history.pages.at(-1);
  if (!last || last.next === undefined) return history;
  if (last.next === fromCursor) {
    return { pages: [...history.pages, { operations: [...run.operations], next: run.next }], pageParams: [...history.pageParams, fromCursor] };
  }
  // Pages the archive kept follow only the page they were asked after.
  if (isKeptParam(fromCursor)) return history;
  const loaded = historyOperations(history);
  const oldestLoaded = loaded.at(-1);
  // The run starts below the loaded end: what lies between is not loaded, so the run cannot follow on.
  if (!oldestLoaded || compareTimes(fromCursor, oldestLoaded.created_at) < 0) return history;
  const loadedIds = new Set(loaded.map((op) => op.id));
  const older = run.operations.filter((op) => !loadedIds.has(op.id) && compareTimes(op.created_at, oldestLoaded.created_at) <= 0);
  if (older.length === 0) return history;
  return { pages: [...history.pages, { operations: older, next: run.next }], pageParams: [...history.pageParams, last.next] };
}

/** The oldest operation the history holds (its pages are newest first). */
export function oldestLoaded(history: History | undefined): Operation | undefined {
  const pages = history?.pages ?? [];
  for (let i = pages.length - 1; i >= 0; i--) {
    const oldest = pages[i]?.operations.at(-1);
    if (oldest) return oldest;
  }
  return undefined;
}

/** Whether the walk has nothing left to load: the history ended, or it reaches back past `from`. */
export function walkEnded(history: History, from: string | undefined): 'end' | 'range' | null {
  if (history.pages.at(-1)?.next === undefined) return 'end';
  const oldest = oldestLoaded(history);
  if (from !== undefined && oldest && Date.parse(oldest.created_at) < Date.parse(from)) return 'range';
  return null;
}

/** Resolves once the history query is not loading a page itself ("Load more"), whose result would replace ours. */
function whenIdle(queryClient: QueryClient, queryKey: readonly unknown[], signal: AbortSignal): Promise<void> {
  const cache = queryClient.getQueryCache();
  const busy = () => cache.find({ queryKey, exact: true })?.state.fetchStatus === 'fetching';
  if (!busy()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = cache.subscribe(() => {
      if (busy()) return;
      done();
      resolve();
    });
    const abort = () => {
      done();
      reject(abortError(signal));
    };
    const done = () => {
      stop();
      signal.removeEventListener('abort', abort);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Walks the project's history into its store until it ends by itself (the resolved reason). Rejects
 * when `signal` aborts, or with the last error once a page fails for good (a 401 also ends the
 * session: the request goes through the query cache and its error policy).
 */
export async function walkHistory(queryClient: QueryClient, projectId: string, options: WalkOptions): Promise<WalkEnd> {
  const { from, signal, pagesPerRun = WALK_PAGES_PER_RUN } = options;
  const { queryKey } = operationQueries.history(projectId);
  for (let pages = 0; ; pages++) {
    const history = queryClient.getQueryData(queryKey);
    if (!history) throw new Error('The history is not loaded.');
    const ended = walkEnded(history, from);
    if (ended) return ended;
    if (pages === pagesPerRun) return 'paused';
    await whenIdle(queryClient, queryKey, signal);
    const cursor = queryClient.getQueryData(queryKey)?.pages.at(-1)?.next;
    if (cursor === undefined) continue;
    const page = await fetchWalkPage(queryClient, projectId, cursor, oldestLoaded(history)?.id, options);
    const current = queryClient.getQueryData(queryKey);
    if (current) queryClient.setQueryData(queryKey, appendOlder(current, page, cursor));
  }
}

/**
 * One page of the walk, at the walk's pace, sent again after a failure the retry policy allows (honouring
 * Retry-After); past the API's end, the archive's pages of what it kept (operations.ts, fetchHistoryPage).
 */
async function fetchWalkPage(
  queryClient: QueryClient,
  projectId: string,
  cursor: string,
  oldestId: string | undefined,
  { signal, pace, onActivity }: WalkOptions,
) {
  const queryKey = [...operationQueries.lists(), { projectId, view: 'walk', cursor, limit: WALK_LIMIT, oldestId }];
  const cancel = () => void queryClient.cancelQueries({ queryKey, exact: true });
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (let failures = 0; ;) {
      await pace.turn(signal);
      onActivity?.({ kind: 'walking' });
      try {
        return await queryClient.query({
          queryKey,
          queryFn: ({ signal: querySignal }) => {
            pace.sending();
            return fetchHistoryPage(projectId, { param: cursor, limit: WALK_LIMIT, oldestId, signal: querySignal });
          },
          // Sent again below, at the walk's pace; the page is added to the history, not kept on its own.
          retry: false,
          staleTime: 0,
          gcTime: 0,
        });
      } catch (error) {
        if (signal.aborted) throw abortError(signal);
        failures++;
        if (!maySendAgain(error) || failures >= WALK_MAX_TRIES) throw error;
        const rateLimited = isApiError(error) && error.status === 429;
        if (rateLimited) pace.slowDown();
        const wait = retryDelay(failures, error);
        const from = Date.now();
        onActivity?.({ kind: 'waiting', problem: describeProblem(error), from, at: from + wait, rateLimited });
        await sleep(wait, signal);
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
