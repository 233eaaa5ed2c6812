// The one place that knows what an operation status means: its label, its tone, whether it is
// final, and how soon to look again. Every screen asks this module; nothing re-derives it.

export type StatusTone = 'pending' | 'progress' | 'success' | 'danger' | 'neutral';

interface StatusRule {
  label: string;
  tone: StatusTone;
  terminal: boolean;
  /** 'slow' = the platform may still retry it, so look again rarely. */
  poll: 'normal' | 'slow' | 'never';
}

const RULES: Record<string, StatusRule> = {
  scheduling: { label: 'Scheduling', tone: 'pending', terminal: false, poll: 'normal' },
  running: { label: 'In progress', tone: 'progress', terminal: false, poll: 'normal' },
  cancelling: { label: 'In progress (cancelling)', tone: 'progress', terminal: false, poll: 'normal' },
  finished: { label: 'OK', tone: 'success', terminal: true, poll: 'never' },
  failed: { label: 'Error', tone: 'danger', terminal: false, poll: 'slow' },
  error: { label: 'Error', tone: 'danger', terminal: true, poll: 'never' },
  cancelled: { label: 'Cancelled', tone: 'neutral', terminal: true, poll: 'never' },
  skipped: { label: 'Skipped', tone: 'neutral', terminal: true, poll: 'never' },
};

export const KNOWN_STATUSES = Object.keys(RULES);
export const TERMINAL_STATUSES = KNOWN_STATUSES.filter((s) => RULES[s]?.terminal);

export const DEFAULT_POLL_INTERVAL_MS = 5_000;
export const SLOW_POLL_INTERVAL_MS = 30_000;
export const MAX_BACKOFF_MS = 60_000;

// An unknown status is shown raw and polled: it may well be a new in-flight state.
function ruleFor(status: string): StatusRule {
  return RULES[status] ?? { label: status, tone: 'neutral', terminal: false, poll: 'normal' };
}

export function statusLabel(status: string): string {
  return ruleFor(status).label;
}

export function statusTone(status: string): StatusTone {
  return ruleFor(status).tone;
}

export function isTerminal(status: string): boolean {
  return ruleFor(status).terminal;
}

// The platform's periodic availability check never holds the project's lock; every other unfinished operation may.
const NON_BLOCKING_ACTIONS = new Set(['check_availability']);

/** Whether this operation may make the platform refuse new changes to its project (423) until it ends. */
export function blocksChanges(status: string, action: string): boolean {
  return !isTerminal(status) && !NON_BLOCKING_ACTIONS.has(action);
}

/** `failed` is not final on this platform: it may be retried, and carries retry details. */
export function mayBeRetried(status: string): boolean {
  return status === 'failed';
}

/** Delay before the next poll of something with this status, or false to stop polling. */
export function nextPollDelay(status: string | undefined, intervalMs = DEFAULT_POLL_INTERVAL_MS): number | false {
  if (status === undefined) return intervalMs;
  const { poll } = ruleFor(status);
  if (poll === 'never') return false;
  if (poll === 'slow') return Math.max(intervalMs, SLOW_POLL_INTERVAL_MS);
  return intervalMs;
}

/** For a list: poll at the pace of its most urgent member, or stop when all are final. */
export function nextListPollDelay(statuses: Iterable<string>, intervalMs = DEFAULT_POLL_INTERVAL_MS): number | false {
  let delay: number | false = false;
  for (const status of statuses) {
    const d = nextPollDelay(status, intervalMs);
    if (d !== false && (delay === false || d < delay)) delay = d;
  }
  return delay;
}

/**
 * After failed polls: back off exponentially from the interval, but never sooner than the server
 * asked for with Retry-After.
 */
export function backoffDelay(failures: number, intervalMs: number, retryAfterMs?: number): number {
  const exp = Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** Math.max(0, failures - 1));
  return Math.max(exp, retryAfterMs ?? 0);
}
