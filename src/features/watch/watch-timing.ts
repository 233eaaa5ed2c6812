import type { Operation } from '../../api/schemas';
import { elapsedSince, formatDuration } from '../../lib/format';
import { durationOf, isAwaitingRetry } from '../../model/operation-status';

/** "took 4.2 s", "12 s so far", or that a failure may still be retried: the watch list's line of time. */
export function watchTiming(operation: Operation, now: number): string {
  if (isAwaitingRetry(operation, now)) return 'failed; the platform may retry it';
  const duration = durationOf(operation);
  if (duration.kind === 'final') return `took ${formatDuration(duration.ms)}`;
  if (duration.kind === 'live') return `${formatDuration(elapsedSince(duration.since, now))} so far`;
  return 'duration not reported';
}
