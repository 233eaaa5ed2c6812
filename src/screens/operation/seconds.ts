/** Whole seconds from `time` to `now`, never negative (how long ago). */
export function secondsSince(time: number, now: number): number {
  return Math.max(0, Math.floor((now - time) / 1_000));
}

/** Whole seconds from `now` to `time`, rounded up and never negative (how long until). */
export function secondsUntil(time: number, now: number): number {
  return Math.max(0, Math.ceil((time - now) / 1_000));
}
