import { queryOptions } from '@tanstack/react-query';
import { archiveQueries } from './archive';
import {
  INSIGHTS_PATH,
  InsightsOverviewSchema,
  projectInsightsPath,
  ProjectInsightsSchema,
  type InsightsOverview,
  type InsightWindow,
  type ProjectInsights,
} from './insights-schemas';
import { callOf } from './query-transport';
import { CONSOLE_BASE, request, type Call } from './request';
import { nextRequestDelay } from './retry-policy';

// Insights over the archive's record, as the page reads them (insights-schemas.ts is the wire): the console
// server's own routes, through request() like the API, so errors, retries and 401s behave alike. Under the
// archive's query root: keeping a key ("Keep history") reads them again.

export function fetchInsightsOverview(window: InsightWindow, call: Call = {}): Promise<InsightsOverview> {
  return request(INSIGHTS_PATH, InsightsOverviewSchema, { base: CONSOLE_BASE, query: { window }, ...call });
}

export function fetchProjectInsights(projectId: string, window: InsightWindow, call: Call = {}): Promise<ProjectInsights> {
  return request(projectInsightsPath(projectId), ProjectInsightsSchema, { base: CONSOLE_BASE, query: { window }, ...call });
}

/** The CSV of a table's figures: a plain link, so it downloads with the page's scripts off too. */
export function insightsCsvHref(path: string, window: InsightWindow): string {
  return `${path}?${new URLSearchParams({ window, format: 'csv' }).toString()}`;
}

export const insightsQueries = {
  all: () => [...archiveQueries.all(), 'insights'] as const,
  overview: (window: InsightWindow) =>
    queryOptions({
      queryKey: [...insightsQueries.all(), 'overview', { window }] as const,
      queryFn: (context) => fetchInsightsOverview(window, callOf(context)),
    }),
  project: (projectId: string, window: InsightWindow) =>
    queryOptions({
      queryKey: [...insightsQueries.all(), 'project', projectId, { window }] as const,
      queryFn: (context) => fetchProjectInsights(projectId, window, callOf(context)),
    }),
};

/** Whether the archive is still reading what these figures count: the page asks again at the chosen interval meanwhile. */
export function insightsStillReading(data: InsightsOverview | ProjectInsights | undefined): boolean {
  if (!data) return false;
  if ('project' in data) return data.archive ? !data.archive.backfilled : data.ownKeyKept;
  return data.ownKeyKept && data.projects.length === 0;
}

/** The figures asked again while the archive is still reading (the retry policy's backoff while it fails); otherwise on focus only. */
export function insightsRefetchInterval(intervalMs: number) {
  return (query: { state: { data: InsightsOverview | ProjectInsights | undefined; fetchFailureCount: number; fetchFailureReason: unknown } }) =>
    nextRequestDelay(query.state, insightsStillReading(query.state.data) ? intervalMs : false);
}
