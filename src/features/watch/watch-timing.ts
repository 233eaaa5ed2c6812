import type { Operation } from '../../api/schemas';
import { elapsedSince, formatDuration } from '../../lib/format';
import { durationOf, isAwaitingRetry } from '../../model/operation-status';

/** A time written to the second, without a fraction. */
const WHOLE_SECOND = /:\d\d(Z|[+-]\d\d:?\d\d)$/;

/**
 * "took 4.2 s", "12 s so far", or that a failure may still be retried: the watch list's line of time. "So far" counts
 * up to `seenAt`, the last read that found it still in flight, never past it: between reads it may already have
 * ended, and the tray must not say "4.7 s so far" of an operation that then "took 3.2 s".
 */
export function watchTiming(operation: Operation, now: number, seenAt: number = now): string {
  if (isAwaitingRetry(operation, now)) return 'failed; the platform may retry it';
  const duration = durationOf(operation);
  if (duration.kind === 'final') return `took ${formatDuration(duration.ms)}`;
  if (duration.kind === 'live') {
    // The API writes created_at in whole seconds ("…T12:00:00Z"): the operation began up to a second after it, so the
    // count starts from the end of that second and never says more than has passed (docs/console.md).
    const unsure = WHOLE_SECOND.test(duration.since) ? 999 : 0;
    return `${formatDuration(Math.max(0, elapsedSince(duration.since, Math.min(now, seenAt)) - unsure))} so far`;
  }
  return 'duration not reported';
}
