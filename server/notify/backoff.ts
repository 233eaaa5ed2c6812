// When a failed delivery is tried again, and when a webhook stops being tried (docs/notifications.md,
// "Delivery and retries"). Each event keeps its own schedule, Standard Webhooks' and Svix's: at once, then
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failed attempt (eight attempts over about 27.5 h),
// with up to a fifth added as jitter; a receiver's longer Retry-After wins. Timeouts, network failures, 5xx
// and 429 are retried; 410 Gone disables the webhook; any other 4xx and a redirect are final for the event.
// A webhook pauses once every delivery has failed for PAUSE_AFTER_FAILING_MS, measured from the first failure
// after its last success, never by a count of attempts.
import { parseRetryAfter } from '../../src/lib/retry-after';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The wait after each failed attempt of an event's round; after the last, the event has failed. */
export const RETRY_SCHEDULE_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** A webhook whose deliveries have all failed for this long (Svix's practice) is paused. */
export const PAUSE_AFTER_FAILING_MS = 5 * DAY;
/** "Redeliver" and Resume reach back this far for events not delivered. */
export const RESEND_WINDOW_MS = 3 * DAY;
/** Deliveries to one webhook in flight at once: a backlog drains in parallel, a receiver is not flooded. */
export const PARALLEL_PER_WEBHOOK = 4;
/** A Retry-After longer than this is read as this (a receiver cannot park an event past the schedule). */
const MAX_RETRY_AFTER_MS = 6 * HOUR;

/** What one attempt's outcome means: taken, try again later, never again for this event, or the receiver is gone for good. */
export type AttemptVerdict = 'delivered' | 'retry' | 'final' | 'gone';

/** `status` undefined: no answer at all (timeout, refused connection, a refused address). */
export function verdictOf(status: number | undefined): AttemptVerdict {
  if (status === undefined) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  if (status === 429 || status >= 500) return 'retry';
  return 'final';
}

/** Milliseconds a receiver's Retry-After asks for (read as the page reads the API's), at most MAX_RETRY_AFTER_MS; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  const ms = parseRetryAfter(header, nowMs);
  return ms === undefined ? undefined : Math.min(ms, MAX_RETRY_AFTER_MS);
}

export interface RetryPlan {
  /** Failed attempts in this round so far, this one included (1-based). */
  attempts: number;
  nowMs: number;
  retryAfter?: number | undefined;
  /** 0..1; up to a fifth of the wait is added, so a receiver back from an outage is not hit by every event at once. */
  jitter?: number;
}

/** When to try again, or null: the schedule is over (the event has failed for good). */
export function nextAttemptAt({ attempts, nowMs, retryAfter, jitter = 0 }: RetryPlan): number | null {
  const wait = RETRY_SCHEDULE_MS[attempts - 1];
  if (wait === undefined) return null;
  return Math.round(nowMs + Math.max(wait * (1 + 0.2 * jitter), retryAfter ?? 0));
}
