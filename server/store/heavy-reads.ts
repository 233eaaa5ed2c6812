// Heavy reads (the insights and their CSV: every operation of a window, read and sorted) run a few at a time
// per process, the rest wait their turn (docs/architecture.md, "The store"): ten clients asking for insights
// no longer take both cores and the store from the cheap requests (a history page, a sign-out). On the
// embedded store they also run in the worker's heavy lane (lanes.ts), so a cheap statement that arrives later
// goes first. One that waits past `waitMs` is a 503 naming the store as busy.
import { StoreUnavailableError } from './db';
import { inLane } from './lanes';

/** How many heavy reads run at once in one process. */
export const HEAVY_READS_AT_ONCE = 2;
/** How long a heavy read waits for its turn before the 503. */
export const HEAVY_READ_WAIT_MS = 20_000;

/** The store is answering other heavy reads: a 503 (store_unavailable) whose words say it is busy, not away. */
export class StoreBusyError extends StoreUnavailableError {
  constructor(waitedMs: number) {
    super(`The console's store is busy with other long reads (insights); none finished within ${waitedMs / 1_000} s. Try again in a moment.`);
    this.name = 'StoreBusyError';
  }
}

export interface HeavyReadsOptions {
  atOnce?: number;
  waitMs?: number;
}

export interface HeavyReads {
  /** Runs `read` once a slot is free (in the store's heavy lane); rejects with StoreBusyError after `waitMs` in line. */
  run: <T>(read: () => Promise<T>) => Promise<T>;
  /** Heavy reads running now, and waiting: metrics and tests read them. */
  running: () => number;
  waiting: () => number;
}

export function createHeavyReads({ atOnce = HEAVY_READS_AT_ONCE, waitMs = HEAVY_READ_WAIT_MS }: HeavyReadsOptions = {}): HeavyReads {
  let running = 0;
  const line: (() => void)[] = [];

  const release = () => {
    const next = line.shift();
    if (next) next();
    else running -= 1;
  };

  const turn = (): Promise<void> => {
    if (running < atOnce) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = line.indexOf(go);
        if (at >= 0) line.splice(at, 1);
        reject(new StoreBusyError(waitMs));
      }, waitMs);
      timer.unref();
      line.push(go);
    });
  };

  return {
    async run(read) {
      await turn();
      try {
        return await inLane('heavy', read);
      } finally {
        release();
      }
    },
    running: () => running,
    waiting: () => line.length,
  };
}
