import type { Figures, InsightRange, InsightWindow, TimeRange } from '../api/insights-schemas';
import { paths } from '../config/paths';
import { KNOWN_STATUSES } from './operation-status';
import { NO_FILTERS, OTHER_STATUS, searchWithFilters, STATUS_CHOICES, type HistoryFilters } from './filters';

// What each insights figure counts, written once as the history's own filters (filter-fields.ts): the store counts
// a figure with those filters' SQL form (server/store/insights.ts), and the figure links to the history
// filtered by the very same filters, so the rows there are the figure. docs/insights.md says it in words.

const SECOND_MS = 1_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const WINDOW_MS: Record<InsightWindow, number> = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS, '90d': 90 * DAY_MS };

/** "the last 7 days": how a page names a window. */
export const WINDOW_NAMES: Record<InsightWindow, string> = {
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
  '30d': 'the last 30 days',
  '90d': 'the last 90 days',
};
/** "the 7 days before": what each change is against. */
export const PREVIOUS_WINDOW_NAMES: Record<InsightWindow, string> = {
  '24h': 'the 24 hours before',
  '7d': 'the 7 days before',
  '30d': 'the 30 days before',
  '90d': 'the 90 days before',
};

/**
 * Percentiles are exact (every value read from the operations) when a read's windows hold this many runs or fewer;
 * above, they are read from the per-day figures' duration buckets, within 1 % of the exact value (docs/insights.md).
 */
export const EXACT_PERCENTILE_RUNS = 2_000;

/**
 * The per-day figures are read for a project holding this many operations or more: below, a project has too few a
 * day for them to sum much, and its operations are read faster themselves (docs/benchmarks.md, "Ten million
 * operations: per-day figures").
 */
export const FIGURES_FROM_OPERATIONS = 1_000_000;

/** The chart's bars: hours over 24 hours, days (UTC) otherwise. */
export type BucketUnit = 'hour' | 'day';
export const bucketUnitOf = (window: InsightWindow): BucketUnit => (window === '24h' ? 'hour' : 'day');
export const BUCKET_MS: Record<BucketUnit, number> = { hour: HOUR_MS, day: DAY_MS };

/** An ISO time on a whole second, as the history's address writes one ("2026-11-22T12:00:00Z"). */
export const isoSecond = (ms: number) => new Date(Math.floor(ms / SECOND_MS) * SECOND_MS).toISOString().replace('.000Z', 'Z');

/**
 * The window ending with the second of `now` (included: the filters read `to` to the end of its second), exactly
 * its length long, and the one of the same length just before it.
 */
export function insightRange(window: InsightWindow, now: number): InsightRange {
  const end = Math.floor(now / SECOND_MS) * SECOND_MS + SECOND_MS;
  const length = WINDOW_MS[window];
  const range = (until: number): TimeRange => ({ from: isoSecond(until - length), to: isoSecond(until - SECOND_MS) });
  return { window, current: range(end), previous: range(end - length) };
}

/** The range as the filters read it, in epoch ms: [start, end). */
export function rangeBounds(range: TimeRange): { start: number; end: number } {
  return { start: Date.parse(range.from), end: Date.parse(range.to) + SECOND_MS };
}

/** The window cut at each bucket boundary (UTC), oldest first: the first and last may be parts of a day. */
export function bucketRanges(range: TimeRange, unit: BucketUnit): TimeRange[] {
  const { start, end } = rangeBounds(range);
  const size = BUCKET_MS[unit];
  const buckets: TimeRange[] = [];
  for (let from = start; from < end;) {
    const next = Math.min(end, (Math.floor(from / size) + 1) * size);
    buckets.push({ from: isoSecond(from), to: isoSecond(next - SECOND_MS) });
    from = next;
  }
  return buckets;
}

/** The API values of one of the Status filter's choices, by its label. */
function choice(label: string): readonly string[] {
  const found = STATUS_CHOICES.find((c) => c.label === label);
  if (!found) throw new Error(`No status choice labelled ${label}`);
  return found.statuses;
}

/** Failed: the history's Error filter (`failed`, which may still be retried, and `error`). */
export const FAILED_STATUSES = choice('Error');
/** Cancelled and skipped operations did not run to an outcome: left out of the failure rate. */
export const UNCOUNTED_STATUSES = [...choice('Cancelled'), ...choice('Skipped')];
/** Durations are those of finished operations (the history's OK filter). */
export const FINISHED_STATUSES = choice('OK');
/** The queue: from the status first seen as waiting to the one first seen as running (the collector's sightings, kept per operation by server/store/operations.ts). */
export const QUEUE_STATUSES = { waiting: 'scheduling', running: 'running' } as const;

const inRange = (range: TimeRange): HistoryFilters => ({ ...NO_FILTERS, from: range.from, to: range.to });

/** Runs: every operation created in the range (of one action, when given). */
export function runsFilters(range: TimeRange, action?: string): HistoryFilters {
  return { ...inRange(range), action: action === undefined ? [] : [action] };
}

/** Failed: of those, the ones the Error filter finds. */
export function failedFilters(range: TimeRange, action?: string): HistoryFilters {
  return { ...runsFilters(range, action), status: FAILED_STATUSES };
}

/** A status condition alone, for the store to count within a range. */
export const statusFilters = (statuses: readonly string[]): HistoryFilters => ({ ...NO_FILTERS, status: statuses });

/** The time condition alone. */
export const rangeFilters = inRange;

/** The history of `projectId` filtered by `filters`: the page a figure links to. */
export function historyHref(projectId: string, filters: HistoryFilters): string {
  const search = searchWithFilters(new URLSearchParams(), filters).toString();
  return search ? `${paths.project(projectId)}?${search}` : paths.project(projectId);
}

/** Failure rate: failed of those that ran to an outcome (runs less cancelled and skipped); null when none did. */
export function failureRate(figures: Pick<Figures, 'runs' | 'failed' | 'uncounted'>): number | null {
  const counted = figures.runs - figures.uncounted;
  return counted > 0 ? figures.failed / counted : null;
}

/** Retried: the share of runs with `failures_count` above 0; null without runs. */
export function retriedShare(figures: Pick<Figures, 'runs' | 'retried'>): number | null {
  return figures.runs > 0 ? figures.retried / figures.runs : null;
}

/**
 * The Status filter's choice an API status falls under (its label: "OK", "Error", …; "other" for a status the
 * console does not know), as the filter reads it: the chart's segments are the filter's choices.
 */
export function statusChoiceOf(status: string): string {
  const known = KNOWN_STATUSES.includes(status);
  const found = STATUS_CHOICES.find((c) => (known ? c.statuses.includes(status) : c.statuses.includes(OTHER_STATUS)));
  return found?.label ?? OTHER_STATUS;
}
