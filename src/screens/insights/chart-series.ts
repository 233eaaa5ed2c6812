// The chart's numbers, shared by its drawing and its table: each bucket's operations per Status filter
// choice (the history's own statuses, so a segment links to what the filter lists), and each bucket's name.
import type { InsightBucket } from '../../api/insights-schemas';
import { STATUS_CHOICES } from '../../model/filters';
import { statusChoiceOf, type BucketUnit } from '../../model/insight-figures';
import { formatClock, formatDay } from '../../lib/date-time-format';

/** The choices in the order their segments stack, bottom up: outcomes first, then work in flight. */
export const CHART_CHOICES = ['OK', 'Error', 'Cancelled', 'Skipped', 'In progress', 'Scheduling', 'other'] as const;

/** The API values behind a choice, for its filter. */
export const choiceStatuses = (label: string): readonly string[] => STATUS_CHOICES.find((c) => c.label === label)?.statuses ?? [];

/** A CSS-safe name of a choice for its look (`ic-seg--in-progress`). */
export const choiceClass = (label: string) => label.toLowerCase().replace(/\s+/g, '-');

export interface ChartBucket extends InsightBucket {
  name: string;
  /** Operations per choice label. */
  counts: Record<string, number>;
  total: number;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * "22 Nov", "22 Nov from 12:00" (a day the window starts in), "22 Nov until 12:00"; for hours, "22 Nov 14:00"
 * (UTC). `reference` decides whether the year is worth saying.
 */
function bucketName(bucket: InsightBucket, unit: BucketUnit, reference: number): string {
  const start = Date.parse(bucket.from);
  const end = Date.parse(bucket.to) + 1_000;
  const size = unit === 'day' ? DAY_MS : HOUR_MS;
  const day = formatDay(start, 'utc', reference);
  const from = start % size === 0 ? '' : ` from ${formatClock(start, 'utc')}`;
  const until = end % size === 0 ? '' : ` until ${formatClock(end, 'utc')}`;
  const hour = unit === 'hour' ? ` ${formatClock(start - (start % HOUR_MS), 'utc')}` : '';
  return `${day}${hour}${from}${until}`;
}

export function chartBuckets(buckets: readonly InsightBucket[], unit: BucketUnit): ChartBucket[] {
  const last = buckets.at(-1);
  const reference = last ? Date.parse(last.to) : 0;
  return buckets.map((bucket) => {
    const counts: Record<string, number> = {};
    let total = 0;
    for (const [status, operations] of Object.entries(bucket.statuses)) {
      const choice = statusChoiceOf(status);
      counts[choice] = (counts[choice] ?? 0) + operations;
      total += operations;
    }
    return { ...bucket, name: bucketName(bucket, unit, reference), counts, total };
  });
}

/** The choices that have any operation in the window (OK and Error always: what a person looks for first). */
export function shownChoices(buckets: readonly ChartBucket[]): string[] {
  return CHART_CHOICES.filter((choice) => choice === 'OK' || choice === 'Error' || buckets.some((bucket) => (bucket.counts[choice] ?? 0) > 0));
}
