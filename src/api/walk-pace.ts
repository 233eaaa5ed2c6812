import { PLATFORM_REQUESTS_PER_MINUTE, PLATFORM_REQUESTS_PER_SECOND_PER_ROUTE } from '../config/platform-limits';
import { recentRequests } from './request-log';

// The pace of a walk through a long history (docs/platform-api.md: 700 requests a minute per key, bursts of 40 a
// second per route). The rule: one walk request at a time, at least WALK_GAP_MS apart (10 a second at
// most); and one goes only while everything this tab sent in the last second is under SECOND_BUDGET
// and in the last minute under MINUTE_BUDGET, so the walk and the console's other traffic together
// keep to half the platform's limits, leaving the rest to polls and other tabs. A 429 doubles the gap
// for the rest of the walk (up to WALK_MAX_GAP_MS), after waiting out its Retry-After.

export const WALK_GAP_MS = 100;
export const WALK_MAX_GAP_MS = 2_000;
/** Half the platform's burst a second per route. */
export const SECOND_BUDGET = PLATFORM_REQUESTS_PER_SECOND_PER_ROUTE / 2;
/** Half the platform's requests a minute per key. */
export const MINUTE_BUDGET = PLATFORM_REQUESTS_PER_MINUTE / 2;

export interface PaceInput {
  now: number;
  /** When the walk's last request went out (-Infinity: none yet). */
  lastSentAt: number;
  gapMs: number;
  /** Send times of this tab's requests in the last minute, oldest first. */
  sent: readonly number[];
}

/** Milliseconds until the oldest of the last `budget` sends leaves the window, if that many went out within it. */
function budgetWait(sent: readonly number[], now: number, windowMs: number, budget: number): number {
  const inWindow = sent.filter((at) => at > now - windowMs);
  if (inWindow.length < budget) return 0;
  const oldestCounted = inWindow[inWindow.length - budget] ?? now;
  return oldestCounted + windowMs - now;
}

/** How long the walk waits before its next request (0: it may go now). */
export function walkWait({ now, lastSentAt, gapMs, sent }: PaceInput): number {
  return Math.max(0, lastSentAt + gapMs - now, budgetWait(sent, now, 1_000, SECOND_BUDGET), budgetWait(sent, now, 60_000, MINUTE_BUDGET));
}

export interface WalkPace {
  /** Resolves when the next walk request may go (rejects if `signal` aborts first). */
  turn: (signal: AbortSignal) => Promise<void>;
  /** The walk's request is going out now: the next gap counts from here, not from when its turn came. */
  sending: () => void;
  /** After a 429: a wider gap from now on. */
  slowDown: () => void;
  readonly gapMs: number;
}

/** What a promise stopped by `signal` rejects with: its reason, as an Error. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The walk was stopped.', 'AbortError');
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

export function createWalkPace(gapMs: number = WALK_GAP_MS): WalkPace {
  let gap = gapMs;
  let lastSentAt = -Infinity;
  return {
    async turn(signal) {
      for (;;) {
        const wait = walkWait({ now: Date.now(), lastSentAt, gapMs: gap, sent: recentRequests() });
        if (wait <= 0) break;
        await sleep(wait, signal);
      }
      lastSentAt = Date.now();
    },
    sending() {
      lastSentAt = Math.max(lastSentAt, Date.now());
    },
    slowDown() {
      gap = Math.min(WALK_MAX_GAP_MS, gap * 2);
    },
    get gapMs() {
      return gap;
    },
  };
}
