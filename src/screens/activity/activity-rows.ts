import { knownProjects, type ActivityFeed, type ActivityProject } from '../../api/activity-feed';
import type { Operation } from '../../api/schemas';
import { filterOperations, type HistoryFilters } from '../../features/history-filters/filters';
import { compareTimes } from '../../lib/format';
import { isInFlight } from '../../lib/operation-status';

/** How far back ended operations are shown, as the address says it (`?ended=6h`); one hour by default. */
export const ENDED_WITHIN = [
  { value: '15m', label: '15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'hour', ms: 60 * 60_000 },
  { value: '6h', label: '6 hours', ms: 6 * 60 * 60_000 },
  { value: '1d', label: 'day', ms: 24 * 60 * 60_000 },
] as const;
export type EndedWithin = (typeof ENDED_WITHIN)[number];
export const DEFAULT_ENDED_WITHIN: EndedWithin = ENDED_WITHIN[1];

export function endedWithinOf(value: string | null): EndedWithin {
  return ENDED_WITHIN.find((choice) => choice.value === value) ?? DEFAULT_ENDED_WITHIN;
}

export interface ActivityRow {
  operation: Operation;
  project: ActivityProject;
}

export interface ActivityView {
  filters: HistoryFilters;
  /** Only this project's operations; undefined: every project's. */
  projectId: string | undefined;
  endedWithinMs: number;
}

/**
 * What the activity table shows: every project's operations in flight, and those that ended within
 * the window, that match the filters; each once, newest first.
 */
export function activityRows(feed: ActivityFeed | undefined, view: ActivityView, now: number): ActivityRow[] {
  if (!feed) return [];
  const rows: ActivityRow[] = [];
  const seen = new Set<string>();
  for (const project of knownProjects(feed)) {
    if (view.projectId !== undefined && project.id !== view.projectId) continue;
    const recent = (feed.checks[project.id]?.operations ?? []).filter(
      (op) => isInFlight(op, now) || now - Date.parse(op.updated_at) <= view.endedWithinMs,
    );
    for (const operation of filterOperations(recent, view.filters)) {
      if (seen.has(operation.id)) continue;
      seen.add(operation.id);
      rows.push({ operation, project });
    }
  }
  return rows.sort((a, b) => compareTimes(b.operation.created_at, a.operation.created_at));
}

/** When the least recently checked project was last read (null: one has never been read yet, or none is known). */
export function oldestCheck(feed: ActivityFeed | undefined): { at: number | null; unchecked: number } {
  if (!feed) return { at: null, unchecked: 0 };
  let at: number | null = null;
  let unchecked = 0;
  for (const project of knownProjects(feed)) {
    const check = feed.checks[project.id];
    if (!check) unchecked++;
    else if (at === null || check.at < at) at = check.at;
  }
  return { at, unchecked };
}
