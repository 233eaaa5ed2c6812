import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError } from '../api/api-error';
import { backoffDelay } from '../lib/operation-status';
import type { NoticeStore } from './notices';

const MAX_RETRIES = 3;

export interface QueryPolicy {
  onUnauthorized: () => void;
  notices: NoticeStore;
  /** Tests turn automatic retries off to see each failure as it happens. */
  retries?: boolean;
}

/**
 * The error policy, in one place: a 401 anywhere ends the session; a failed background refresh
 * keeps its data and raises a notice; a failed first load is left to the screen (inline + Retry).
 */
export function createQueryClient({ onUnauthorized, notices, retries = true }: QueryPolicy): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError(error, query) {
        if (isApiError(error) && error.isUnauthorized) {
          onUnauthorized();
          return;
        }
        if (query.state.data !== undefined) {
          notices.show({
            id: query.queryHash,
            message: `Could not refresh: ${error.message} Showing the last data received; retrying.`,
            requestId: isApiError(error) ? error.requestId : undefined,
          });
        }
      },
      onSuccess(_data, query) {
        notices.clear(query.queryHash);
      },
    }),
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
        retry: (failureCount, error) =>
          retries && failureCount < MAX_RETRIES && isApiError(error) && error.isRetryable,
        retryDelay: (attempt, error) =>
          backoffDelay(attempt + 1, 1_000, isApiError(error) ? error.retryAfterMs : undefined),
      },
      mutations: { retry: false },
    },
  });
}
