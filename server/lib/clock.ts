// The clock background loops are handed (the collector, the store's upkeep, the collector's lock): real time in
// the server, a simulated one in tests, so a loop's waits are tested without waiting.

export interface Clock {
  now: () => number;
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  wait: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  wait: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted || ms <= 0) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    }),
};
