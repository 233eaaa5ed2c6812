import { act } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';

// The console's timers and Date on a fake clock that also moves with real time, so Testing Library's
// waits and user events work as ever, while a test can jump ahead: "nothing is polled for ten intervals"
// becomes ten intervals of the console's time, run at once, instead of a real wait with loose bounds.
// The simulator keeps its own clock (sim.clock), moved only by the test.

const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] as const;

/**
 * Puts the console's timers and Date on the fake clock from now on (the calling file restores real timers
 * after each test). `frozen`: the clock moves only by `elapse`, never with real time, so what a machine's
 * load does between two steps of the console (a timer, then its request) takes no time on it.
 */
export function fakeConsoleClock({ frozen = false }: { frozen?: boolean } = {}) {
  vi.useFakeTimers({ shouldAdvanceTime: !frozen, toFake: [...FAKED] });
}

/** Installs the fake clock around every test of the calling file. */
export function withFakeConsoleClock() {
  beforeEach(() => fakeConsoleClock());
  afterEach(() => {
    vi.useRealTimers();
  });
}

/**
 * Moves the console's clock on by `ms` in at most 40 steps (50 ms at least), letting each answer arrive
 * and React render between steps: fine enough to count polls at 100 ms, quick over an hour.
 */
export async function elapse(ms: number) {
  const step = Math.max(50, Math.ceil(ms / 40));
  for (let left = ms; left > 0; left -= step) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(Math.min(step, left));
      await new Promise((resolve) => setImmediate(resolve));
    });
  }
}
