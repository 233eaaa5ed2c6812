import type { Wait } from '../lib/format';
import { DEFAULT_POLL_INTERVAL_MS, isInFlight, mayBeRetried, type OperationFacts } from '../model/operation-status';
import { isApiError, type ApiError } from './api-error';

// The one policy for sending a request again: what may be sent again (by the console, or by the
// person), how soon (backoff, Retry-After), and when the next request of a query goes out, whether it
// is a retry or the next poll. The query client's retryDelay, the pollers' refetchInterval, the
// mutations' waits and every countdown a screen shows ask the functions below. Each failure carries
// the moment it arrived (ApiError.failedAt), so "when" is that moment plus the delay computed here.

/** First wait after a failure; each next wait doubles up to MAX_BACKOFF_MS, never sooner than Retry-After. */
export const RETRY_BASE_MS = 1_000;
export const MAX_BACKOFF_MS = 60_000;
/**
 * First wait after a change is refused with 423 (project busy; each next wait doubles): operations
 * take seconds. Never longer than the chosen poll interval, so a person (or a test) who polls fast
 * is not kept waiting longer than a poll.
 */
export const LOCKED_RETRY_BASE_MS = 2_000;
/** The slow pace (docs/platform-api.md): a failure that may still be retried, and a history with nothing in progress, are checked this often. */
export const SLOW_POLL_INTERVAL_MS = 30_000;

/** The 423 retry base at the chosen poll interval. */
export function lockedRetryBase(intervalMs: number): number {
  return Math.min(intervalMs, LOCKED_RETRY_BASE_MS);
}

/** The chosen poll interval at the slow pace. */
export function slowPollDelay(intervalMs: number): number {
  return Math.max(intervalMs, SLOW_POLL_INTERVAL_MS);
}

/**
 * Delay before the next poll of an operation (or of a bare status), or false to stop: the chosen
 * interval while in flight, the slow pace while a failure may be retried, none once it is over.
 * Nothing known yet: the interval.
 */
export function nextPollDelay(operation: string | OperationFacts | undefined, intervalMs = DEFAULT_POLL_INTERVAL_MS, now = Date.now()): number | false {
  if (operation === undefined) return intervalMs;
  const facts = typeof operation === 'string' ? { status: operation } : operation;
  if (!isInFlight(facts, now)) return false;
  return mayBeRetried(facts.status) ? slowPollDelay(intervalMs) : intervalMs;
}

/** A webhook's delivery log is read this often: it changes on the server's schedule (a retry, a new event). */
export const DELIVERY_LOG_INTERVAL_MS = 10_000;
/** How long a redelivery is followed closely before the log goes back to its pace (the send's own timeout is 10 s). */
export const REDELIVERY_FOLLOW_MS = 30_000;

/** An event sent again: which, how many attempts it had then, and when (the page's clock). */
export interface AwaitedDelivery {
  eventId: string;
  attempts: number;
  since: number;
}

/**
 * Delay before the next read of a delivery log: every second (the retry base) from a redelivery until a read made
 * after it shows that event's attempt (delivered, failed, or tried once more), then the log's pace.
 */
export function deliveryLogPollDelay(
  log: { data: { deliveries: readonly { eventId: string; state: string; attempts: number }[] } | undefined; dataUpdatedAt: number },
  awaited: AwaitedDelivery | undefined,
  now = Date.now(),
): number {
  if (!awaited || now - awaited.since > REDELIVERY_FOLLOW_MS) return DELIVERY_LOG_INTERVAL_MS;
  const delivery = log.data?.deliveries.find((d) => d.eventId === awaited.eventId);
  const landed = log.dataUpdatedAt > awaited.since && delivery !== undefined && (delivery.state !== 'pending' || delivery.attempts > awaited.attempts);
  return landed ? DELIVERY_LOG_INTERVAL_MS : RETRY_BASE_MS;
}

/** For a list: poll at the pace of its most urgent member, or stop when all are over. */
export function nextListPollDelay(operations: Iterable<string | OperationFacts>, intervalMs = DEFAULT_POLL_INTERVAL_MS, now = Date.now()): number | false {
  let delay: number | false = false;
  for (const operation of operations) {
    const d = nextPollDelay(operation, intervalMs, now);
    if (d !== false && (delay === false || d < delay)) delay = d;
  }
  return delay;
}

/**
 * A history's newest page: at its operations' pace while one of them is in flight, and otherwise at
 * the slow pace, so new operations still appear. What the history's toolbar says is this same delay.
 */
export function historyRefreshDelay(newest: Iterable<string | OperationFacts>, intervalMs: number, now = Date.now()): number {
  const live = nextListPollDelay(newest, intervalMs, now);
  return live === false ? slowPollDelay(intervalMs) : live;
}

const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

/** 423: the project is busy with another operation (the same request may be sent again). */
export function isLocked(error: unknown): error is ApiError {
  return isApiError(error) && error.kind === 'http' && error.status === 423;
}

/**
 * Refused before anything changed, so the same request (a change too) may be sent again: 423
 * (project busy), 429 (rate limited) and 503 (server busy), per the platform (docs/platform-api.md).
 */
export function isRefusedForNow(error: unknown): error is ApiError {
  return isApiError(error) && refusedForNow(error);
}

function refusedForNow(error: ApiError): boolean {
  return error.kind === 'http' && (error.status === 423 || error.status === 429 || error.status === 503);
}

/** No answer, or a server error that may pass: a change in that state may or may not have happened. */
function isTransient(error: ApiError): boolean {
  return error.kind === 'network' || (error.kind === 'http' && TRANSIENT_STATUSES.has(error.status));
}

const isRead = (error: ApiError) => error.method === 'GET' || error.method === 'HEAD';

/**
 * Whether the console sends a failed request again by itself, with backoff: anything refused for
 * now; a read also after no answer, a 5xx or a body it could not read. Never a 401, 403, 404, 409.
 */
export function maySendAgain(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return refusedForNow(error) || (isRead(error) && (isTransient(error) || error.kind === 'malformed'));
}

/** Whether a person is offered to try a failed request again: anything that may pass (they judge a change). */
export function mayOfferRetry(error: unknown): boolean {
  return isApiError(error) && (refusedForNow(error) || isTransient(error));
}

/** Exponential from `baseMs` (`failures`: 1 after the first), capped, but never sooner than Retry-After. */
export function backoffDelay(failures: number, baseMs: number, retryAfterMs?: number): number {
  const exp = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.max(exp, retryAfterMs ?? 0);
}

/** How long after a failure the request is sent again (`failures` counts that one: 1 after the first). */
export function retryDelay(failures: number, error: unknown, baseMs = RETRY_BASE_MS): number {
  return backoffDelay(failures, baseMs, isApiError(error) ? error.retryAfterMs : undefined);
}

/**
 * A query's refetchInterval: while its last requests failed, the retry backoff (the same waits as
 * the query client's own retries); otherwise the pace its data asks for (false: no more polls).
 */
export function nextRequestDelay(state: { fetchFailureCount: number; fetchFailureReason: unknown }, pollDelay: number | false): number | false {
  if (pollDelay === false || state.fetchFailureCount === 0) return pollDelay;
  return retryDelay(state.fetchFailureCount, state.fetchFailureReason);
}

/** What tells when a query's (or a mutation's) next request goes out. */
export interface RequestTimes {
  failureCount: number;
  failureReason: unknown;
  /** A request is under way or a retry is waiting (the query's fetchStatus is not idle; a mutation is pending). */
  fetching: boolean;
  /** When the last answer arrived (a query's dataUpdatedAt). */
  answeredAt: number;
}

/** When a request that failed (`failureCount` times, the last with `failureReason`) is sent again by itself: a retry under way. */
export function nextRetry(failureCount: number, failureReason: unknown, baseMs = RETRY_BASE_MS): Wait | null {
  return nextRequest({ failureCount, failureReason, fetching: true, answeredAt: 0 }, false, baseMs);
}

/**
 * When the next request goes out by itself, or null when none will: after a failure, from the
 * moment it arrived for the retry delay (a retry under way, or the next poll of a query whose last
 * poll failed); otherwise from the last answer for the poll delay. Past due while it is being sent.
 */
export function nextRequest(times: RequestTimes, pollDelay: number | false, baseMs = RETRY_BASE_MS): Wait | null {
  const { failureCount, failureReason, fetching, answeredAt } = times;
  if (failureCount > 0 && isApiError(failureReason) && (fetching || pollDelay !== false)) {
    const from = failureReason.failedAt;
    return { from, at: from + retryDelay(failureCount, failureReason, baseMs) };
  }
  return pollDelay === false ? null : { from: answeredAt, at: answeredAt + pollDelay };
}
