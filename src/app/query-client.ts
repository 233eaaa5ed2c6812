import { MutationCache, QueryCache, type QueryCacheNotifyEvent } from '@tanstack/react-query';
import { describeProblem, isApiError, isDoneUnread, type ApiError } from '../api/api-error';
import { TransportQueryClient } from '../api/query-transport';
import { sameOriginTransport, type Transport } from '../api/request';
import { maySendAgain, nextRetry, retryDelay } from '../api/retry-policy';
import type { Notice, NoticeStore } from './notices';

export interface QueryPolicy {
  /** A 401: the API refused the key, or the console's server could no longer open the session (the error's code says which). */
  onUnauthorized: (error: ApiError) => void;
  notices: NoticeStore;
  /** Tests of single failures may turn automatic retries off; polled screens are tested with them on. */
  retries?: boolean;
  /** How the queries reach the API: the page's same-origin fetch, or a server render's own transport. */
  transport?: Transport;
}

function isLoadingMore(meta: unknown): boolean {
  return typeof meta === 'object' && meta !== null && 'fetchMore' in meta && meta.fetchMore !== undefined;
}

function situationOf(query: { state: { fetchMeta: unknown; data: unknown } }): Notice['situation'] {
  if (isLoadingMore(query.state.fetchMeta)) return 'more';
  return query.state.data === undefined ? 'load' : 'refresh';
}

/**
 * Keeps the notices in step with the cache: one per query while its reads fail and are retried (with
 * the moment of the next try), gone when the query succeeds, stops fetching, loses its last screen, or
 * leaves the cache.
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
        situation: situationOf(query),
        problem: describeProblem(error),
        nextTry: nextRetry(action.failureCount, error),
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
 * platform calls safe to retry is retried with backoff (honouring Retry-After, api/retry-policy.ts)
 * for as long as a screen shows it, with a notice saying what failed and counting down to the next
 * try, while its data stays on screen; any other failed background refresh keeps its data and raises
 * a notice; any other failed first load is left to the screen (inline + Retry).
 */
export function createQueryClient({ onUnauthorized, notices, retries = true, transport = sameOriginTransport }: QueryPolicy): TransportQueryClient {
  const queryCache = new QueryCache({
    onError(error, query) {
      if (isApiError(error) && error.isUnauthorized) {
        onUnauthorized(error);
        return;
      }
      if (query.getObserversCount() === 0) {
        notices.clear(query.queryHash);
      } else if (query.state.data !== undefined) {
        notices.show({
          id: query.queryHash,
          situation: situationOf(query),
          problem: error.message,
          nextTry: null,
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
  const client: TransportQueryClient = new TransportQueryClient({
    transport,
    queryCache,
    mutationCache: new MutationCache({
      onError(error) {
        if (isApiError(error) && error.isUnauthorized) onUnauthorized(error);
        // A change the API took (2xx) but whose answer could not be read: it happened, so whatever it
        // changed (branches, computes, operations, keys) is read again, for every mutation alike.
        if (isDoneUnread(error)) void client.invalidateQueries();
      },
    }),
    defaultOptions: {
      queries: {
        // The browser's online flag is not the API's reachability: with it off, React Query would pause
        // the first load for good (a skeleton, no error). Every request goes out and says why it failed.
        networkMode: 'always',
        staleTime: 10_000,
        refetchIntervalInBackground: false,
        refetchOnWindowFocus: true,
        // No cap on tries: a read that is safe to retry keeps being retried (at most once a minute)
        // while a screen shows it, so the console recovers by itself when the API does.
        retry: (_failureCount, error) => retries && maySendAgain(error),
        // React Query counts the failures before this one; the policy counts this one too.
        retryDelay: (failureCount, error) => retryDelay(failureCount + 1, error),
      },
      mutations: { retry: false, networkMode: 'always' },
    },
  });
  return client;
}
