// Pure display helpers. No locale surprises: durations and UTC times read the same everywhere, and
// nothing builds an Intl formatter (each loads locale data on the first paint of a table).

/** `create_branch` → "Create branch"; anything unexpected is shown as it came. */
export function humanizeAction(action: string): string {
  if (!/^[a-z0-9]+(_[a-z0-9]+)*$/.test(action)) return action;
  const words = action.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** 1234 → "1.2 s", 75_000 → "1 min 15 s", 3_900_000 → "1 h 5 min". */
/** A polling pace as the poll indicator says it: "5 s", "30 s", "1 min" (whole seconds, no tenths). */
export function everyInterval(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1_000));
  return seconds < 60 ? `${seconds} s` : formatDuration(seconds * 1_000);
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const totalSeconds = Math.floor(ms / 1_000);
  if (totalSeconds < 60) return `${totalSeconds} s`;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  if (minutes < 60) return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const restMinutes = minutes % 60;
  if (hours < 24) return restMinutes ? `${hours} h ${restMinutes} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  const restHours = hours % 24;
  return restHours ? `${days} d ${restHours} h` : `${days} d`;
}

/** Seconds of compute: 5400 → "1 h 30 min". */
export function formatSeconds(seconds: number): string {
  if (seconds === 0) return '0 s';
  return formatDuration(seconds * 1_000);
}

/** "2026-11-22 12:00:05 UTC" */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const UNITS: [string, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/**
 * "5 minutes ago", "yesterday", "in 10 seconds". Written by hand: building an Intl.RelativeTimeFormat
 * loads locale data and cost 20–35 ms on the first paint of every table.
 */
export function formatRelative(iso: string, now: number): string {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return iso;
  const diff = time - now;
  if (Math.abs(diff) < 5_000) return 'just now';
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) < ms) continue;
    const count = Math.round(Math.abs(diff) / ms);
    if (unit === 'day' && count === 1) return diff < 0 ? 'yesterday' : 'tomorrow';
    const words = `${count} ${unit}${count === 1 ? '' : 's'}`;
    return diff < 0 ? `${words} ago` : `in ${words}`;
  }
  return iso;
}

/**
 * A past event relative to `now`: never "in 6 seconds". A moment a little ahead of the page's clock (the
 * API's clock, or a `now` that ticks only every few seconds) is "just now".
 */
export function formatPast(iso: string, now: number): string {
  const time = new Date(iso).getTime();
  return formatRelative(iso, Number.isNaN(time) ? now : Math.max(now, time));
}

/**
 * Orders two ISO times (negative: `a` is earlier). Same-format times compare exactly, microseconds
 * included (the platform's cursors have them); others by Date.parse.
 */
export function compareTimes(a: string, b: string): number {
  if (a.length === b.length) return a < b ? -1 : a > b ? 1 : 0;
  const diff = new Date(a).getTime() - new Date(b).getTime();
  return Number.isNaN(diff) ? 0 : diff;
}

/** Milliseconds elapsed since `iso` (never negative). */
export function elapsedSince(iso: string, now: number): number {
  const time = new Date(iso).getTime();
  return Number.isNaN(time) ? 0 : Math.max(0, now - time);
}

/** Whole seconds from `time` to `now`, never negative (how long ago). */
export function secondsSince(time: number, now: number): number {
  return Math.max(0, Math.floor((now - time) / 1_000));
}

/** A wait for something due at `at` that began at `from` (a failure, the last answer), in epoch ms. */
export interface Wait {
  from: number;
  at: number;
}

/**
 * Whole seconds left of a wait at `now`, rounded up, never negative: what every countdown shows. A
 * screen's `now` ticks once a second, so it may lag behind a wait that just began: it counts from no
 * earlier than the wait's start, and shows the whole wait at first.
 */
export function secondsLeft(wait: Wait, now: number): number {
  return Math.max(0, Math.ceil((wait.at - Math.max(now, wait.from)) / 1_000));
}

/**
 * The one wording of a countdown to the console's next try of a failed request: "retrying in 3 s",
 * then "retrying now" (capitalised to start a sentence). The wait comes from api/retry-policy.ts.
 */
export function retryCountdown(wait: Wait, now: number, startsSentence = false): string {
  const left = secondsLeft(wait, now);
  const words = left > 0 ? `retrying in ${left} s` : 'retrying now';
  return startsSentence ? `R${words.slice(1)}` : words;
}

/** 20000 → "20,000" (by hand, like the rest: no locale data to load). */
export function formatCount(count: number): string {
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
