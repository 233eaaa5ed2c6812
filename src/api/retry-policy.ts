import { backoffDelay } from '../lib/operation-status';
import { isApiError } from './api-error';

// When a failed read is sent again by itself: what the query client retries, and how soon.

/** First wait after a failed read; each next wait doubles up to MAX_BACKOFF_MS, never sooner than Retry-After. */
export const RETRY_BASE_MS = 1_000;

/** How long the query client waits before trying a failed read again (`failures`: 1 after the first). */
export function retryDelayMs(failures: number, error: unknown): number {
  return backoffDelay(failures, RETRY_BASE_MS, isApiError(error) ? error.retryAfterMs : undefined);
}

/** Whether the query client sends a failed read again by itself: only what the platform says is safe. */
export function shouldRetry(error: unknown): boolean {
  return isApiError(error) && error.isSafeToRetry;
}
