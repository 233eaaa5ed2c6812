// When a failed delivery is tried again (docs/notifications.md): exponential backoff from 10 s doubling to
// at most an hour, with jitter, for 24 h after the event was first queued; a receiver's Retry-After is
// honoured (as the later of it and the backoff); timeouts, network failures, 5xx and 429 are retried,
// any other 4xx is final. A webhook that failed this many deliveries in a row is paused.
import { parseRetryAfter } from '../../src/lib/retry-after';

export const RETRY_FOR_MS = 24 * 60 * 60 * 1000;
export const FIRST_RETRY_MS = 10_000;
export const MAX_RETRY_MS = 60 * 60 * 1000;
export const PAUSE_AFTER_FAILURES = 20;
/** A Retry-After longer than this is read as this (a receiver cannot park an event past the retry window). */
const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;

/** What one attempt's outcome means: the receiver took it, try again later, or never again. */
export type AttemptVerdict = 'delivered' | 'retry' | 'final';

/** `status` undefined: no answer at all (timeout, refused connection, a refused address). */
export function verdictOf(status: number | undefined): AttemptVerdict {
  if (status === undefined) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 429 || status >= 500) return 'retry';
  return 'final';
}

/** Milliseconds a receiver's Retry-After asks for (read as the page reads the API's), at most MAX_RETRY_AFTER_MS; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  const ms = parseRetryAfter(header, nowMs);
  return ms === undefined ? undefined : Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** The delay before attempt `attempts + 1` after `attempts` failed ones (1-based), before jitter. */
export function backoffMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}

export interface RetryPlan {
  /** Failed attempts so far, this one included. */
  attempts: number;
  /** When the event was first queued (ms since the epoch). */
  queuedAt: number;
  nowMs: number;
  retryAfter?: number | undefined;
  /** 0..1; up to a fifth of the delay is added, so a receiver back from an outage is not hit by every event at once. */
  jitter?: number;
}

/** When to try again, or null: the 24 h are over (the delivery has failed for good). */
export function nextAttemptAt({ attempts, queuedAt, nowMs, retryAfter, jitter = 0 }: RetryPlan): number | null {
  const backoff = backoffMs(attempts) * (1 + 0.2 * jitter);
  const at = nowMs + Math.max(backoff, retryAfter ?? 0);
  return at > queuedAt + RETRY_FOR_MS ? null : Math.round(at);
}
