import { QueryObserver, type QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, describeProblem } from '../../src/api/api-error';
import {
  backoffDelay,
  DELIVERY_LOG_INTERVAL_MS,
  deliveryLogPollDelay,
  REDELIVERY_FOLLOW_MS,
  RETRY_BASE_MS,
  historyRefreshDelay,
  lockedRetryBase,
  maySendAgain,
  nextPollDelay,
  nextRequest,
  nextRequestDelay,
  nextRetry,
  SLOW_POLL_INTERVAL_MS,
} from '../../src/api/retry-policy';
import { retryCountdown } from '../../src/lib/format';
import { createNoticeStore, noticeText, type NoticeStore } from '../../src/app/notices';
import { createQueryClient } from '../../src/app/query-client';

// The query client's error policy with the simulated clock: what it retries, when, and what it says meanwhile.

const busy = (requestId: string) => new ApiError({ kind: 'http', status: 503, message: 'service temporarily unavailable', requestId });
const rateLimited = (retryAfterMs: number) => new ApiError({ kind: 'http', status: 429, message: 'rate limit exceeded', retryAfterMs });

let notices: NoticeStore;
let client: QueryClient;
let stop: (() => void) | undefined;

beforeEach(() => {
  vi.useFakeTimers();
  notices = createNoticeStore();
  client = createQueryClient({ onUnauthorized: () => undefined, notices });
});
afterEach(() => {
  stop?.();
  client.clear();
  vi.useRealTimers();
});

/** A screen showing the query: results of `answers` in turn, the last one repeated. */
function watch(answers: (() => unknown)[]) {
  const calls: number[] = [];
  const next = () => {
    calls.push(Date.now());
    return answers[Math.min(calls.length - 1, answers.length - 1)];
  };
  const observer = new QueryObserver(client, {
    queryKey: ['thing'],
    queryFn: () => {
      const answer = next();
      return Promise.resolve().then(() => answer?.());
    },
  });
  stop = observer.subscribe(() => undefined);
  return { calls, observer };
}

const messages = () => notices.list().map((n) => noticeText(n, Date.now()));

describe('retry policy', () => {
  it('retries a busy server with backoff, saying so, and clears the notice once it answers', async () => {
    const { calls, observer } = watch([
      () => {
        throw busy('r1');
      },
      () => {
        throw busy('r2');
      },
      () => ({ ok: true }),
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    expect(messages()).toEqual(['Could not load: The server is busy (503). Retrying in 1 s.']);
    expect(notices.list()[0]?.requestId).toBe('r1');

    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(2);
    expect(messages()).toEqual(['Could not load: The server is busy (503). Retrying in 2 s.']);

    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toHaveLength(3);
    expect(observer.getCurrentResult().data).toEqual({ ok: true });
    expect(messages()).toEqual([]);
  });

  it('never sends the retry before Retry-After, however short the backoff', async () => {
    const { calls } = watch([
      () => {
        throw rateLimited(5_000);
      },
      () => ({ ok: true }),
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(messages()).toEqual(['Could not load: Rate limited by the API (429). Retrying in 5 s.']);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
  });

  it('keeps retrying a read for as long as the outage lasts, at most once a minute', async () => {
    const { calls } = watch([
      () => {
        throw new ApiError({ kind: 'network', status: 0, message: 'Could not reach the API.' });
      },
    ]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    // Waits of 1, 2, 4, 8, 16, 32 s, then 60 s each: tries at 0, 1, 3, 7, 15, 31, 63 s, then 123 … 543 s.
    expect(calls.length).toBe(15);
    // The notice counts down to the next try (603 s), not a wait frozen when the last one failed.
    expect(messages()).toEqual(['Could not load: Could not reach the API. Retrying in 3 s.']);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(messages()).toEqual(['Could not load: Could not reach the API. Retrying in 1 s.']);
  });

  it('does not retry what retrying cannot fix, and leaves a first-load failure to the screen', async () => {
    const { calls, observer } = watch([
      () => {
        throw new ApiError({ kind: 'http', status: 404, message: 'project not found' });
      },
    ]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);
    expect(observer.getCurrentResult().isError).toBe(true);
    expect(messages()).toEqual([]);
  });

  it('says "Showing the last data received" when a refresh fails, and the data stays', async () => {
    const { observer } = watch([
      () => ({ ok: 1 }),
      () => {
        throw new ApiError({ kind: 'malformed', status: 200, message: 'The API sent a response the console could not read (x).', requestId: 'r9' });
      },
      () => ({ ok: 2 }),
    ]);
    await vi.advanceTimersByTimeAsync(0);
    void observer.refetch();
    await vi.advanceTimersByTimeAsync(0);
    expect(messages()).toEqual(['Could not refresh: The API sent a response the console could not read. Showing the last data received; retrying in 1 s.']);
    expect(observer.getCurrentResult().data).toEqual({ ok: 1 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(observer.getCurrentResult().data).toEqual({ ok: 2 });
    expect(messages()).toEqual([]);
  });

  it('drops the notice when no screen shows the query any more', async () => {
    watch([
      () => {
        throw busy('r1');
      },
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(messages()).toHaveLength(1);
    stop?.();
    stop = undefined;
    expect(messages()).toEqual([]);
  });
});

describe('which failures are safe to send again', () => {
  it.each([
    ['GET', { kind: 'network', status: 0 }, true],
    ['GET', { kind: 'malformed', status: 200 }, true],
    ['GET', { kind: 'http', status: 500 }, true],
    ['GET', { kind: 'http', status: 404 }, false],
    ['GET', { kind: 'http', status: 401 }, false],
    ['POST', { kind: 'http', status: 503 }, true],
    ['POST', { kind: 'http', status: 429 }, true],
    ['POST', { kind: 'http', status: 423 }, true],
    ['POST', { kind: 'http', status: 500 }, false],
    ['POST', { kind: 'network', status: 0 }, false],
    ['DELETE', { kind: 'malformed', status: 200 }, false],
  ] as const)('%s after %o: %s', (method, init, expected) => {
    expect(maySendAgain(new ApiError({ ...init, method, message: 'x' }))).toBe(expected);
  });

  it('names each failure specifically', () => {
    expect(describeProblem(busy('r'))).toBe('The server is busy (503).');
    expect(describeProblem(rateLimited(1))).toBe('Rate limited by the API (429).');
    expect(describeProblem(new ApiError({ kind: 'http', status: 502, message: 'bad gateway' }))).toBe('The API failed with an internal error (502).');
    expect(describeProblem(new ApiError({ kind: 'network', status: 0, message: 'x' }))).toBe('Could not reach the API.');
  });
});

describe('how soon the next request goes out', () => {
  it('backs off exponentially after failures, capped, but never sooner than Retry-After', () => {
    expect(backoffDelay(1, 5_000)).toBe(5_000);
    expect(backoffDelay(2, 5_000)).toBe(10_000);
    expect(backoffDelay(3, 5_000)).toBe(20_000);
    expect(backoffDelay(10, 5_000)).toBe(60_000);
    expect(backoffDelay(1, 5_000, 42_000)).toBe(42_000);
  });

  it('polls at the pace asked while answers come, and backs off like a retry while they fail', () => {
    expect(nextRequestDelay({ fetchFailureCount: 0, fetchFailureReason: null }, 5_000)).toBe(5_000);
    expect(nextRequestDelay({ fetchFailureCount: 3, fetchFailureReason: busy('r') }, 5_000)).toBe(4_000);
    expect(nextRequestDelay({ fetchFailureCount: 1, fetchFailureReason: rateLimited(7_000) }, 5_000)).toBe(7_000);
    expect(nextRequestDelay({ fetchFailureCount: 2, fetchFailureReason: busy('r') }, false)).toBe(false);
  });

  it('tells when: the failure plus its wait while failing, the last answer plus the pace otherwise', () => {
    vi.setSystemTime(100_000);
    const failure = busy('r');
    expect(nextRequest({ failureCount: 2, failureReason: failure, fetching: true, answeredAt: 50_000 }, 5_000)).toEqual({ from: 100_000, at: 102_000 });
    expect(nextRequest({ failureCount: 0, failureReason: null, fetching: false, answeredAt: 50_000 }, 5_000)).toEqual({ from: 50_000, at: 55_000 });
    expect(nextRequest({ failureCount: 0, failureReason: null, fetching: false, answeredAt: 50_000 }, false)).toBeNull();
  });
});

describe('one pace, one countdown', () => {
  it("refreshes a history at its operations' pace while one is in flight, otherwise at the slow pace (never faster than chosen)", () => {
    expect(historyRefreshDelay(['finished', 'running'], 5_000)).toBe(5_000);
    expect(historyRefreshDelay(['finished'], 5_000)).toBe(SLOW_POLL_INTERVAL_MS);
    expect(historyRefreshDelay([], 60_000)).toBe(60_000);
    // The slow pace of a history is the slow pace of a failure that may still be retried.
    expect(historyRefreshDelay(['finished'], 5_000)).toBe(nextPollDelay('failed', 5_000));
  });

  it('waits after a 423 from the locked base, never longer than the chosen poll interval', () => {
    expect(lockedRetryBase(5_000)).toBe(2_000);
    expect(lockedRetryBase(100)).toBe(100);
    vi.setSystemTime(10_000);
    const locked = new ApiError({ kind: 'http', status: 423, message: 'project is locked', method: 'POST' });
    expect(nextRetry(1, locked, lockedRetryBase(5_000))).toEqual({ from: 10_000, at: 12_000 });
    expect(nextRetry(2, locked, lockedRetryBase(5_000))).toEqual({ from: 10_000, at: 14_000 });
  });

  it('words every countdown to the next try the same way', () => {
    const wait = { from: 10_000, at: 13_000 };
    expect(retryCountdown(wait, 10_000)).toBe('retrying in 3 s');
    expect(retryCountdown(wait, 12_500, true)).toBe('Retrying in 1 s');
    expect(retryCountdown(wait, 13_000, true)).toBe('Retrying now');
  });
});

describe('deliveryLogPollDelay', () => {
  const since = 1_000_000;
  const awaited = { eventId: 'op-1:failed:1', attempts: 1, since };
  const log = (state: string, attempts: number, dataUpdatedAt: number) => ({
    data: { deliveries: [{ eventId: 'op-1:failed:1', state, attempts }] },
    dataUpdatedAt,
  });

  it('reads the log at its pace when nothing was sent again', () => {
    expect(deliveryLogPollDelay(log('pending', 1, since), undefined, since)).toBe(DELIVERY_LOG_INTERVAL_MS);
  });

  it('reads it every second after a redelivery until a read made since shows the attempt', () => {
    // The read before the redelivery said "failed": not the redelivery's result.
    expect(deliveryLogPollDelay(log('failed', 1, since - 1), awaited, since + 500)).toBe(RETRY_BASE_MS);
    // Queued again, not yet tried.
    expect(deliveryLogPollDelay(log('pending', 1, since + 1_000), awaited, since + 1_000)).toBe(RETRY_BASE_MS);
    // The receiver had it.
    expect(deliveryLogPollDelay(log('delivered', 2, since + 2_000), awaited, since + 2_000)).toBe(DELIVERY_LOG_INTERVAL_MS);
    // Tried and failed, a retry scheduled: the result is shown, the log goes back to its pace.
    expect(deliveryLogPollDelay(log('pending', 2, since + 2_000), awaited, since + 2_000)).toBe(DELIVERY_LOG_INTERVAL_MS);
  });

  it('stops following a redelivery that never shows after a while', () => {
    expect(deliveryLogPollDelay(log('pending', 1, since + 1_000), awaited, since + REDELIVERY_FOLLOW_MS + 1)).toBe(DELIVERY_LOG_INTERVAL_MS);
  });
});
