import { describeError } from './api-error';
import { retryDelayMs } from './retry-policy';

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
  error: unknown;
  /** What failed, in words a person can act on. */
  message: string;
  requestId?: string | undefined;
  /** When the query client tries again by itself; null when it has given up (the person retries). */
  nextTryMs: number | null;
}

function failure(error: unknown, nextTryMs: number | null): LoadFailure {
  const { message, requestId } = describeError(error);
  return { error, message, requestId, nextTryMs };
}

/**
 * Why a query that has no data yet is failing, for the screen to show inline with a Retry button:
 * a final error, or a failure the query client is retrying by itself (503, 429, no answer, …), so a
 * first load that fails never looks like plain loading. Null while loading normally or once data is in.
 */
export function loadFailure(query: QueryLike): LoadFailure | null {
  if (query.data !== undefined) return null;
  if (query.isError) return failure(query.error, null);
  if (query.failureCount > 0 && query.fetchStatus !== 'idle') {
    return failure(query.failureReason, retryDelayMs(query.failureCount, query.failureReason));
  }
  return null;
}
