import { backoffDelay } from '../lib/operation-status';
import { isApiError, type ApiError } from './api-error';

/** Tries in all (the first request included) before a 423 is handed to the person to retry by hand. */
export const LOCKED_MAX_TRIES = 5;
/** First wait after a 423; each next wait doubles (the shared backoff). Operations take seconds. */
export const LOCKED_RETRY_BASE_MS = 2_000;

/** 423: the project is busy with another operation; the platform says the same request is safe to send again. */
export function isLocked(error: unknown): error is ApiError {
  return isApiError(error) && error.status === 423;
}

/**
 * Refused before anything changed, so the same change may be sent again: 423 (project busy), 429
 * (rate limited) and 503 (server busy), per the platform (DESIGN §3).
 */
export function isRefusedForNow(error: unknown): error is ApiError {
  return isApiError(error) && (error.status === 423 || error.status === 429 || error.status === 503);
}

/**
 * Mutation options that resend a request refused for now (423, 429, 503) with backoff, never
 * sooner than Retry-After, up to LOCKED_MAX_TRIES tries in all.
 */
export function retryWhileLocked(baseMs: number = LOCKED_RETRY_BASE_MS) {
  return {
    retry: (failures: number, error: Error) => isRefusedForNow(error) && failures < LOCKED_MAX_TRIES - 1,
    retryDelay: (failures: number, error: Error) =>
      backoffDelay(failures + 1, baseMs, isRefusedForNow(error) ? error.retryAfterMs : undefined),
  };
}

/** Variables of a request that starts operations: the caller may abort it, also between 423 retries. */
export interface Abortable {
  signal?: AbortSignal | undefined;
}

/** How a screen hears about the operations a request started, even if it unmounted meanwhile. */
export interface StartOptions<Data, Variables> {
  onStarted?: (data: Data, variables: Variables) => void;
  /** First wait before resending a request refused with 423. */
  retryBaseMs?: number;
}
