import { backoffDelay } from '../lib/operation-status';
import { isApiError } from './api-error';

/**
 * The delay before the next poll once polls have started failing: exponential from the interval,
 * never sooner than the server's Retry-After. Undefined while polls succeed.
 */
export function delayAfterFailedPolls(
  state: { fetchFailureCount: number; fetchFailureReason: unknown },
  intervalMs: number,
): number | undefined {
  if (state.fetchFailureCount === 0) return undefined;
  const reason = state.fetchFailureReason;
  return backoffDelay(state.fetchFailureCount, intervalMs, isApiError(reason) ? reason.retryAfterMs : undefined);
}
