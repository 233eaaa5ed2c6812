/** The simulator's only source of time: everything it derives (statuses, background work) reads this. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(t: Date | number): void;
}

export function systemClock(): Clock {
  return { now: () => Date.now() };
}

export function fakeClock(start: Date | number): FakeClock {
  let current = toEpochMs(start);
  return {
    now: () => current,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`fakeClock.advance: ms must be a finite number >= 0, got ${ms}`);
      current += ms;
    },
    set(t: Date | number) {
      const next = toEpochMs(t);
      // Time never runs backwards in the simulator: derived history would otherwise contradict itself.
      if (next < current) throw new RangeError('fakeClock.set: the clock cannot move backwards');
      current = next;
    },
  };
}

function toEpochMs(t: Date | number): number {
  const ms = typeof t === 'number' ? t : t.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('fakeClock: invalid time');
  return ms;
}
