import { knownProjects, type ActivityFeed, type ActivityProject } from '../../api/activity-feed';
import type { Operation } from '../../api/schemas';
import { filterOperations, type HistoryFilters } from '../../model/filters';
import { compareTimes } from '../../lib/format';
import { isInFlight } from '../../model/operation-status';

/** How far back ended operations are shown, as the address says it (`?ended=6h`); one hour by default. */
export const ENDED_WITHIN = [
  { value: '15m', label: '15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'hour', ms: 60 * 60_000 },
  { value: '6h', label: '6 hours', ms: 6 * 60 * 60_000 },
  { value: '1d', label: 'day', ms: 24 * 60 * 60_000 },
] as const;
export type EndedWithin = (typeof ENDED_WITHIN)[number];
export const DEFAULT_ENDED_WITHIN: EndedWithin = ENDED_WITHIN[1];

/** What people write for each choice besides its own value (`?ended=day`, `24h`, `hour`…). */
const ENDED_ALIASES: Record<EndedWithin['value'], readonly string[]> = {
  '15m': ['15min', '15mins', '15minutes', '900s'],
  '1h': ['h', 'hour', '60m', '60min', '1hour'],
  '6h': ['6hours', '6hrs', '360m'],
  '1d': ['d', 'day', '24h', '24hours', '1day'],
};

/** The choice `?ended=` names (its value or a usual way of writing it); null when it names none. */
export function parseEndedWithin(value: string): EndedWithin | null {
  const written = value.trim().toLowerCase().replace(/\s+/g, '');
  return ENDED_WITHIN.find((choice) => choice.value === written || ENDED_ALIASES[choice.value].includes(written)) ?? null;
}

/** The choice in the address: one hour when absent; `unknown` holds what it said when it names no choice (the page says so). */
export function endedWithinOf(value: string | null): { choice: EndedWithin; unknown?: string } {
  if (value === null || value === '') return { choice: DEFAULT_ENDED_WITHIN };
  const choice = parseEndedWithin(value);
  return choice ? { choice } : { choice: DEFAULT_ENDED_WITHIN, unknown: value };
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
    const recent = (feed.checks[project.id]?.operations ?? []).filter((op) => isInFlight(op, now) || now - Date.parse(op.updated_at) <= view.endedWithinMs);
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
