// Request starts taken a few at a time per turn of the event loop. A busy Node process accepts one new
// connection per turn (libuv/libuv#3696), and a turn runs every callback that is ready: with 100 busy
// connections each turn started about 100 requests and lasted 50–150 ms, so people arriving meanwhile waited
// seconds to be accepted at all (bench/arrivals.ts), and /healthz waited a turn too. Past a budget of time in
// one turn, the next requests wait for the rest of the turn or the following ones, in the order they came, so
// turns stay short; /healthz is never held (server/routes.ts). Requests waiting is also the process's
// sign of overload: a page asked for then goes out as the shell at once (server/pages/page.ts) rather than add a
// render to the backlog. Measured (npm run bench, 2 workers, 200 connections, 100 more arriving at once):
// 1,900 → 3,758 req/s, slowest answer 706 → 198 ms, /healthz slowest 335 → 66 ms, the 100 arriving all
// answered within 4.5 s before, 0.8 s after (1.2 s with a 10 ms budget).
/** Time one turn may spend (from its first request, everything the process runs meanwhile included) before the next requests wait. */
export const TURN_BUDGET_MS = 5;

/**
 * Requests waiting for a turn at which the process counts as overloaded: a page then goes out as the shell
 * (the browser asks for its data itself) instead of adding a render to the backlog.
 */
export const OVERLOADED_WAITING = 8;

/** Started slots kept at the front of the queue before it is compacted. */
const COMPACT_AFTER = 1_024;

export interface TurnBudget {
  /** Runs `start` now while this turn's budget lasts (and nothing is waiting), else in a later turn, in order. */
  admit: (start: () => void) => void;
  /** Starts waiting for a later turn. */
  readonly waiting: number;
}

export interface TurnBudgetOptions {
  budgetMs?: number;
  now?: () => number;
}

export function createTurnBudget({ budgetMs = TURN_BUDGET_MS, now = () => performance.now() }: TurnBudgetOptions = {}): TurnBudget {
  const queue: ((() => void) | undefined)[] = [];
  let head = 0;
  // Wall time, not the starts' own: a start's awaits run as microtasks after it returns, between callbacks.
  let turnStart = 0;
  // This turn's poll phase has admitted a request (cleared in its check phase).
  let marked = false;
  let freshenQueued = false;

  const spent = () => now() - turnStart;
  const endOfPoll = () => {
    marked = false;
  };
  const markTurn = () => {
    if (marked) return;
    marked = true;
    turnStart = now();
    // A setImmediate set in the poll phase runs in this turn's check phase; one set in the check phase, in the next turn's.
    setImmediate(endOfPoll);
  };
  const freshen = () => {
    freshenQueued = false;
    if (!marked) turnStart = now();
  };
  // One waiting start per immediate, so its microtasks run (and count) before the next is weighed. The check
  // phase may spend what the poll phase left of twice the budget; past it, the head waits for the next turn.
  const runOne = () => {
    if (head === queue.length) return;
    if (spent() >= 2 * budgetMs) {
      if (!freshenQueued) {
        freshenQueued = true;
        setImmediate(freshen);
      }
      setImmediate(runOne);
      return;
    }
    const start = queue[head];
    queue[head] = undefined;
    head++;
    // Emptied, or (under a backlog that never empties) mostly started: drop the started slots.
    if (head === queue.length || (head > COMPACT_AFTER && head * 2 > queue.length)) {
      queue.splice(0, head);
      head = 0;
    }
    start?.();
  };

  return {
    admit: (start) => {
      markTurn();
      if (head < queue.length || spent() >= budgetMs) {
        queue.push(start);
        setImmediate(runOne);
      } else {
        start();
      }
    },
    get waiting() {
      return queue.length - head;
    },
  };
}
