import { MutationCache, QueryCache, QueryClient, type QueryCacheNotifyEvent } from '@tanstack/react-query';
import { describeProblem, isApiError } from '../api/api-error';
import { retryDelayMs, shouldRetry } from '../api/retry-policy';
import type { NoticeStore } from './notices';

export interface QueryPolicy {
  onUnauthorized: () => void;
  notices: NoticeStore;
  /** Tests turn automatic retries off to see each failure as it happens. */
  retries?: boolean;
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1_000));
}

/** The notice while a read is failing and will be tried again in `delayMs`. */
export function retryingNotice(error: unknown, delayMs: number, { hasData, loadingMore }: { hasData: boolean; loadingMore: boolean }): string {
  const problem = describeProblem(error);
  const wait = `retrying in ${seconds(delayMs)} s`;
  if (loadingMore) return `Could not load more: ${problem} Keeping what is shown; ${wait}.`;
  if (hasData) return `Could not refresh: ${problem} Showing the last data received; ${wait}.`;
  return `Could not load: ${problem} ${wait.charAt(0).toUpperCase()}${wait.slice(1)}.`;
}

function isLoadingMore(meta: unknown): boolean {
  return typeof meta === 'object' && meta !== null && 'fetchMore' in meta && meta.fetchMore !== undefined;
}

/**
 * Keeps the notices in step with the cache: one per query while its reads fail and are retried (with
 * the wait), gone when the query succeeds, stops fetching, loses its last screen, or leaves the cache.
 */
function followFailures(notices: NoticeStore) {
  return (event: QueryCacheNotifyEvent) => {
    const { query } = event;
    if (event.type === 'removed') {
      notices.clear(query.queryHash);
      return;
    }
    if (event.type === 'observerRemoved' && query.getObserversCount() === 0) {
      notices.clear(query.queryHash);
      return;
    }
    if (event.type !== 'updated') return;
    const { action } = event;
    if (action.type === 'failed') {
      const error: unknown = action.error;
      if (isApiError(error) && error.isUnauthorized) return;
      notices.show({
        id: query.queryHash,
        message: retryingNotice(error, retryDelayMs(action.failureCount, error), {
          hasData: query.state.data !== undefined,
          loadingMore: isLoadingMore(query.state.fetchMeta),
        }),
        requestId: isApiError(error) ? error.requestId : undefined,
      });
      return;
    }
    // A fetch that ended without an error the cache keeps (cancelled, reverted): the retry notice is stale.
    if (action.type === 'setState' && query.state.fetchStatus === 'idle' && query.state.status !== 'error') {
      notices.clear(query.queryHash);
    }
  };
}

/**
 * The error policy, in one place: a 401 anywhere ends the session; a read that fails in a way the
 * platform calls safe to retry is retried with backoff (honouring Retry-After) for as long as a screen
 * shows it, with a notice saying what failed and when the next try is, while its data stays on screen;
 * any other failed background refresh keeps its data and raises a notice; any other failed first load
 * is left to the screen (inline + Retry).
 */
export function createQueryClient({ onUnauthorized, notices, retries = true }: QueryPolicy): QueryClient {
  const queryCache = new QueryCache({
    onError(error, query) {
      if (isApiError(error) && error.isUnauthorized) {
        onUnauthorized();
        return;
      }
      if (query.getObserversCount() === 0) {
        notices.clear(query.queryHash);
      } else if (query.state.data !== undefined) {
        notices.show({
          id: query.queryHash,
          message: `Could not refresh: ${error.message} Showing the last data received.`,
          requestId: isApiError(error) ? error.requestId : undefined,
        });
      } else {
        // The screen shows this failure inline; a notice about retrying would now be wrong.
        notices.clear(query.queryHash);
      }
    },
    onSuccess(_data, query) {
      notices.clear(query.queryHash);
    },
  });
  queryCache.subscribe(followFailures(notices));
  return new QueryClient({
    queryCache,
    mutationCache: new MutationCache({
      onError(error) {
        if (isApiError(error) && error.isUnauthorized) onUnauthorized();
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchIntervalInBackground: false,
        refetchOnWindowFocus: true,
        // No cap on tries: a read that is safe to retry keeps being retried (at most once a minute)
        // while a screen shows it, so the console recovers by itself when the API does.
        retry: (_failureCount, error) => retries && shouldRetry(error),
        retryDelay: (failureCount, error) => retryDelayMs(failureCount + 1, error),
      },
      mutations: { retry: false },
    },
  });
}
