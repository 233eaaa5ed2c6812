import * as z from 'zod/mini';
import { INSIGHT_WINDOWS } from '../config/insight-windows';
import { ArchiveCoverageSchema } from './archive-schemas';

// The insights' wire: figures over the archive's record of operations (server/insights/, read from the store),
// per archived project (`/archive/insights`) and per action of one project (`/archive/projects/:id/insights`).
// What each figure counts is written once, as history filters (model/insight-figures.ts);
// docs/insights.md says it in words. Written once here, imported by the server and the page.

export const INSIGHTS_PATH = '/archive/insights';

/** `/archive/projects/:projectId/insights`: one project's figures per action, and its operations per day (or hour). */
export const projectInsightsPath = (projectId: string) => `/archive/projects/${encodeURIComponent(projectId)}/insights`;

export { DEFAULT_INSIGHT_WINDOW, INSIGHT_WINDOWS, insightWindowOf, type InsightWindow } from '../config/insight-windows';
export const InsightWindowSchema = z.enum(INSIGHT_WINDOWS);

/** Asked for CSV (`?format=csv`) instead of JSON: the table's figures as a file. */
export const CSV_FORMAT = 'csv';

/** A time range as the history's filters read it: ISO times on whole seconds, both inclusive to the second. */
export const TimeRangeSchema = z.object({ from: z.string(), to: z.string() });
export type TimeRange = z.infer<typeof TimeRangeSchema>;

/** The window asked for, and the one of the same length before it (what each change is against). */
export const InsightRangeSchema = z.object({ window: InsightWindowSchema, current: TimeRangeSchema, previous: TimeRangeSchema });
export type InsightRange = z.infer<typeof InsightRangeSchema>;

/** One row's figures over one window (docs/insights.md): counts, and durations in milliseconds (null: none to measure). */
export const FiguresSchema = z.object({
  /** Operations created in the window. */
  runs: z.number(),
  /** Of them, with status `failed` or `error` (the history's Error filter). */
  failed: z.number(),
  /** Of them, cancelled or skipped: not counted in the failure rate. */
  uncounted: z.number(),
  /** Of them, with `failures_count` above 0. */
  retried: z.number(),
  /** Median and 95th percentile of the finished ones' `total_duration_ms`. */
  p50Ms: z.nullable(z.number()),
  p95Ms: z.nullable(z.number()),
  /** The finished ones with a duration: how many runs p50 and p95 rest on. */
  timed: z.number(),
  /** Median time from first seen scheduling to first seen running, over the `queued` operations seen scheduling. */
  queueP50Ms: z.nullable(z.number()),
  queued: z.number(),
});
export type Figures = z.infer<typeof FiguresSchema>;

/** A table row: an action (its API value twice) or a project (its id and name). */
export const InsightRowSchema = z.object({ key: z.string(), name: z.string(), current: FiguresSchema, previous: FiguresSchema });
export type InsightRow = z.infer<typeof InsightRowSchema>;

/** Every archived project the session's key can read, one row each. */
export const InsightsOverviewSchema = z.object({
  range: InsightRangeSchema,
  projects: z.array(InsightRowSchema),
  /** Whether the session's own key is kept (then the archive reads every project it reaches). */
  ownKeyKept: z.boolean(),
});
export type InsightsOverview = z.infer<typeof InsightsOverviewSchema>;

/** A day (an hour for 24h) of the window, cut to the window at its ends: its operations by API status. */
export const InsightBucketSchema = z.object({ from: z.string(), to: z.string(), statuses: z.record(z.string(), z.number()) });
export type InsightBucket = z.infer<typeof InsightBucketSchema>;

export const ProjectInsightsSchema = z.object({
  project: z.object({ id: z.string(), name: z.string() }),
  /** How complete the archive's record of the project is; null: no kept key reaches it (nothing to count). */
  archive: z.nullable(ArchiveCoverageSchema),
  ownKeyKept: z.boolean(),
  range: InsightRangeSchema,
  actions: z.array(InsightRowSchema),
  bucket: z.enum(['hour', 'day']),
  buckets: z.array(InsightBucketSchema),
});
export type ProjectInsights = z.infer<typeof ProjectInsightsSchema>;
