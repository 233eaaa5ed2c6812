import { hashKey, type QueryKey } from '@tanstack/react-query';
import type { Wait } from '../lib/format';
import { describeError } from './api-error';
import { nextRetry } from './retry-policy';

/** The parts of a query result that tell whether its first load is failing. */
interface QueryLike {
  data: unknown;
  error: unknown;
  failureReason: unknown;
  failureCount: number;
  isError: boolean;
  fetchStatus: 'fetching' | 'paused' | 'idle';
}

export interface LoadFailure {
  /** The query's hash: the notices' key for the same fault, which the screen now shows itself. */
  id: string;
  error: unknown;
  /** What failed, in words a person can act on. */
  message: string;
  requestId?: string | undefined;
  /** When the query client tries again by itself; null when it has given up (the person retries). */
  nextTry: Wait | null;
}

function failure(queryKey: QueryKey, error: unknown, nextTry: Wait | null): LoadFailure {
  const { message, requestId } = describeError(error);
  return { id: hashKey(queryKey), error, message, requestId, nextTry };
}

/**
 * Why the query at `queryKey` has no data yet, for the screen to show inline with a Retry button: a
 * final error, or a failure the query client is retrying by itself (503, 429, no answer, …), so a
 * first load that fails never looks like plain loading. Null while loading normally or once data is in.
 */
export function loadFailure(query: QueryLike, queryKey: QueryKey): LoadFailure | null {
  if (query.data !== undefined) return null;
  if (query.isError) return failure(queryKey, query.error, null);
  if (query.failureCount > 0 && query.fetchStatus !== 'idle') {
    return failure(queryKey, query.failureReason, nextRetry(query.failureCount, query.failureReason));
  }
  return null;
}

/**
 * Why "Load more" has not brought its page yet: a failure the query client is retrying by itself
 * (a 5xx, no answer, …), with when it tries again, so a page that keeps failing never looks like plain
 * loading for a minute. Null while the page loads normally, and once it is in.
 */
export function loadMoreFailure(
  query: Pick<QueryLike, 'failureCount' | 'failureReason'> & { isFetchingNextPage: boolean },
  queryKey: QueryKey,
): LoadFailure | null {
  if (!query.isFetchingNextPage || query.failureCount === 0) return null;
  return failure(queryKey, query.failureReason, nextRetry(query.failureCount, query.failureReason));
}
