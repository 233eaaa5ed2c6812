// How an insights figure and its change against the previous window read: in words and signs, never colour.
import { formatCount, formatDuration } from '../../lib/format';

const MINUS = '\u2212';
const NO_BREAK_SPACE = '\u00a0';

/** Two words that are one answer: never a word to a line in a narrow column (docs/insights.md). */
const NO_CHANGE = `no${NO_BREAK_SPACE}change`;
const NONE_BEFORE = `none${NO_BREAK_SPACE}before`;

/** A quantity with its unit ("1.1 s", "12 points") never wraps between the two. */
const unbroken = (text: string) => text.replaceAll(' ', NO_BREAK_SPACE);

/** 0.125 → "12.5%"; null (nothing to divide by) → "—". */
export function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
}

/** A duration, or "—" when there was none to measure. */
export function formatMs(ms: number | null): string {
  return ms === null ? '—' : unbroken(formatDuration(ms));
}

const signed = (difference: number, magnitude: string) => `${difference > 0 ? '+' : MINUS}${magnitude}`;

/** "+5 from 37", "−3 from 10", "no change". */
export function countChange(current: number, previous: number): string {
  const difference = current - previous;
  return difference === 0 ? NO_CHANGE : `${signed(difference, formatCount(Math.abs(difference)))} from ${formatCount(previous)}`;
}

/** "+2.5 points from 10.0%", "none before" (nothing to compare with). */
export function rateChange(current: number | null, previous: number | null): string {
  if (previous === null) return NONE_BEFORE;
  if (current === null) return `was ${formatRate(previous)}`;
  const points = (current - previous) * 100;
  return Math.abs(points) < 0.05 ? NO_CHANGE : `${signed(points, Math.abs(points).toFixed(1))}${NO_BREAK_SPACE}points from ${formatRate(previous)}`;
}

/** "+300 ms from 1.1 s", "none before". */
export function durationChange(current: number | null, previous: number | null): string {
  if (previous === null) return NONE_BEFORE;
  if (current === null) return `was ${formatMs(previous)}`;
  const difference = current - previous;
  return difference === 0 ? NO_CHANGE : `${signed(difference, formatMs(Math.abs(difference)))} from ${formatMs(previous)}`;
}
