import { durationOf, statusTone, type StatusTone } from '../../../model/operation-status';
import type { FilterableOperation } from '../../../model/filters';

// Where each operation of a timeline goes: one lane per branch and compute, a mark from its start to
// its end (its end is now while it is in flight) over a window of time. Pure, so it is tested alone.

/** The fields of an operation a timeline reads: what the filters read, and how long it took. */
export interface TimelineOperation extends FilterableOperation {
  total_duration_ms: number;
}

export interface TimelineMark<T extends TimelineOperation = TimelineOperation> {
  operation: T;
  start: number;
  end: number;
  /** Still in flight: its end is now, and it grows. */
  live: boolean;
  tone: StatusTone;
}

export interface TimelineLane<T extends TimelineOperation = TimelineOperation> {
  key: string;
  branch: string;
  compute: string | undefined;
  marks: TimelineMark<T>[];
}

export interface TimelineLayout<T extends TimelineOperation = TimelineOperation> {
  lanes: TimelineLane<T>[];
  /** Marks drawn, and operations in the window left out past MAX_MARKS (the oldest). */
  shown: number;
  left: number;
}

/** More marks than this are unreadable (and too many tab stops): the newest are drawn. */
export const MAX_MARKS = 300;

export interface LayoutInput<T extends TimelineOperation> {
  /** Newest first. */
  operations: readonly T[];
  start: number;
  end: number;
  now: number;
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
}

/** The operation's span: from its creation to its reported end, or to now while in flight. */
export function spanOf(operation: TimelineOperation, now: number): { start: number; end: number; live: boolean } {
  const start = Date.parse(operation.created_at);
  const duration = durationOf(operation);
  if (duration.kind === 'live') return { start, end: Math.max(start, now), live: true };
  return { start, end: start + (duration.kind === 'final' ? duration.ms : 0), live: false };
}

export function layoutTimeline<T extends TimelineOperation>({ operations, start, end, now, branchNames, computeNames }: LayoutInput<T>): TimelineLayout<T> {
  const lanes = new Map<string, TimelineLane<T>>();
  let shown = 0;
  let left = 0;
  for (const operation of operations) {
    const span = spanOf(operation, now);
    if (Number.isNaN(span.start) || span.end < start || span.start > end) continue;
    if (shown === MAX_MARKS) {
      left++;
      continue;
    }
    const key = `${operation.branch_id ?? ''} ${operation.endpoint_id ?? ''}`;
    let lane = lanes.get(key);
    if (!lane) {
      lane = {
        key,
        branch: operation.branch_id ? (branchNames.get(operation.branch_id) ?? operation.branch_id) : 'No branch',
        compute: operation.endpoint_id ? (computeNames.get(operation.endpoint_id) ?? operation.endpoint_id) : undefined,
        marks: [],
      };
      lanes.set(key, lane);
    }
    lane.marks.push({ operation, start: span.start, end: span.end, live: span.live, tone: statusTone(operation.status) });
    shown++;
  }
  const sorted = [...lanes.values()].sort((a, b) => a.branch.localeCompare(b.branch) || (a.compute ?? '').localeCompare(b.compute ?? ''));
  // Oldest first within a lane: the order a person reads (and tabs through) it, left to right.
  for (const lane of sorted) lane.marks.reverse();
  return { lanes: sorted, shown, left };
}

/** Round times for the axis: about `count` ticks over the window, on a step a person reads easily. */
export function axisTicks(start: number, end: number, count = 6): number[] {
  const steps = [60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 86_400_000];
  const span = end - start;
  const step = steps.find((s) => span / s <= count) ?? Math.ceil(span / count / 86_400_000) * 86_400_000;
  const ticks: number[] = [];
  for (let t = Math.ceil(start / step) * step; t <= end; t += step) ticks.push(t);
  return ticks;
}

/** A mark's bar: its height, and its least width so an instant operation can still be pointed at. */
export const MARK_BAR = 12;
export const MARK_MIN_WIDTH = 6;
/** How far the diamond of an error reaches before a mark's start, and the arrowhead of work in flight past its end. */
export const MARK_DIAMOND = 8;
export const MARK_ARROW = 9;
/** Room kept between two marks on one row, so the pointer can tell them apart. */
const MARK_GAP = 2;

/** What a mark covers on the chart, in its units: the bar, with the diamond before an error and the arrowhead after work in flight. */
export function markReach(x1: number, x2: number, tone: StatusTone, live: boolean): { left: number; right: number } {
  const left = tone === 'danger' ? x1 - MARK_DIAMOND : x1;
  const right = x1 + Math.max(MARK_MIN_WIDTH, x2 - x1) + (live ? MARK_ARROW : 0);
  return { left, right };
}

/**
 * The row of a lane each mark is drawn on (0 the lane's own line): a mark goes on the first row where it
 * touches no mark already drawn, so two operations started together (a restart's two, a branch and its
 * compute) are drawn one above the other, each whole, instead of the later hiding the earlier. Marks in
 * drawing order (oldest first); returns a row per mark and how many rows the lane needs.
 */
export function stackMarks(reaches: readonly { left: number; right: number }[]): { rows: number[]; count: number } {
  const rowEnds: number[] = [];
  const rows = reaches.map(({ left, right }) => {
    let row = rowEnds.findIndex((end) => left >= end + MARK_GAP);
    if (row === -1) row = rowEnds.push(right) - 1;
    else rowEnds[row] = right;
    return row;
  });
  return { rows, count: Math.max(1, rowEnds.length) };
}
