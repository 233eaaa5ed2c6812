import { elapsedSince, formatDuration } from '../lib/format';
import { durationOf } from './operation-status';

// How long each action usually takes in a project, from the operations the console has loaded, and
// the rule that marks an operation in flight as "Longer than usual". Durations themselves are the
// status module's decision (durationOf); this module only gathers them.

/** The usual duration of one action: p50 and p95 of the durations reported for it, over `count` operations. */
export interface UsualDuration {
  action: string;
  p50: number;
  p95: number;
  count: number;
}

/** Fewer ended operations of an action than this say nothing about its usual duration. */
export const USUAL_MIN_SAMPLES = 5;
/** In flight past this many times its action's p95 … */
export const LONGER_FACTOR = 2;
/** … and past this long at least (a check that usually takes 2 s is not worrying at 5 s). */
export const LONGER_MIN_MS = 30_000;

/** The rule, in the words the page states it in. */
export const LONGER_THAN_USUAL_RULE = `An operation still in progress past ${LONGER_FACTOR}× the p95 of its action here, and past ${
  LONGER_MIN_MS / 1_000
} s, is marked "Longer than usual".`;

interface DurationFacts {
  action: string;
  status: string;
  created_at: string;
  total_duration_ms: number;
}

/** Nearest rank: the smallest sample with at least `q` of the samples at or below it. */
function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** Per action, p50 and p95 of the durations the platform reported for operations that ended (zero: not reported). */
export function usualDurations(operations: Iterable<DurationFacts>): Map<string, UsualDuration> {
  const samples = new Map<string, number[]>();
  for (const op of operations) {
    const duration = durationOf(op);
    if (duration.kind !== 'final' || !(duration.ms > 0)) continue;
    const list = samples.get(op.action);
    if (list) list.push(duration.ms);
    else samples.set(op.action, [duration.ms]);
  }
  const usual = new Map<string, UsualDuration>();
  for (const [action, list] of samples) {
    const sorted = Float64Array.from(list).sort();
    usual.set(action, { action, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), count: sorted.length });
  }
  return usual;
}

/** How long an operation of this action may run before it is longer than usual. */
export function longerThreshold(usual: UsualDuration): number {
  return Math.max(LONGER_FACTOR * usual.p95, LONGER_MIN_MS);
}

/**
 * The usual duration an operation has run past, or null: it is still in progress (its duration counts
 * up), its action has enough history here, and it has run past the threshold. Clears once it ends.
 */
/** Whether an operation can be longer than usual at all: only while it is still under way. */
export function canRunLong(operation: DurationFacts): boolean {
  return durationOf(operation).kind === 'live';
}

export function longerThanUsual(operation: DurationFacts, usual: ReadonlyMap<string, UsualDuration>, now: number): UsualDuration | null {
  const duration = durationOf(operation);
  if (duration.kind !== 'live') return null;
  const figure = usual.get(operation.action);
  if (!figure || figure.count < USUAL_MIN_SAMPLES) return null;
  return elapsedSince(duration.since, now) > longerThreshold(figure) ? figure : null;
}

/** "usually 2.1 s, p95 4.8 s" */
export function describeUsual(usual: UsualDuration): string {
  return `usually ${formatDuration(usual.p50)}, p95 ${formatDuration(usual.p95)}`;
}
