// One source's requests inside its budget, by the Activity view's own rule (src/lib/activity-scheduler.ts):
// evenly paced, never more than the budget in any minute, halved for a while after a 429 and nothing
// sent before its Retry-After.
import type { Clock } from '../lib/clock';
import { earliestSend, recordSent, SLOW_DOWN_MS, type RequestKind, type SentRequest, type SlowDown } from '../../src/lib/activity-scheduler';

export interface Pacer {
  /** Waits for the next request's turn and counts it. */
  turn: (kind: RequestKind, signal: AbortSignal) => Promise<void>;
  rateLimited: (retryAfterMs: number | undefined) => void;
  /** For the scheduler's plan: what was sent, and any slow-down in force. */
  state: () => { sent: readonly SentRequest[]; slowDown: SlowDown | null };
  /** Requests sent so far (the bench counts them). */
  count: () => number;
}

export function createPacer(budgetPerMinute: number, clock: Clock): Pacer {
  let sent: SentRequest[] = [];
  let slowDown: SlowDown | null = null;
  let count = 0;
  return {
    async turn(kind, signal) {
      const at = earliestSend({ now: clock.now(), budgetPerMinute, sent, slowDown });
      const wait = at - clock.now();
      if (wait > 0) await clock.wait(wait, signal);
      sent = recordSent(sent, { at: Math.max(at, clock.now()), kind });
      count += 1;
    },
    rateLimited(retryAfterMs) {
      const now = clock.now();
      slowDown = {
        since: slowDown && now < slowDown.until ? slowDown.since : now,
        until: now + Math.max(SLOW_DOWN_MS, retryAfterMs ?? 0),
        notBefore: now + (retryAfterMs ?? 1_000),
      };
    },
    state: () => ({ sent, slowDown }),
    count: () => count,
  };
}
