// The windows an insights page offers, in its address (`?window=7d`): the list the wire checks
// (src/api/insights-schemas.ts) and the page reads, apart from the wire so a page's first load carries no schema.

export const INSIGHT_WINDOWS = ['24h', '7d', '30d', '90d'] as const;
export type InsightWindow = (typeof INSIGHT_WINDOWS)[number];
export const DEFAULT_INSIGHT_WINDOW: InsightWindow = '7d';

/** The address's window, or the default for anything else. */
export function insightWindowOf(value: string | null | undefined): InsightWindow {
  return INSIGHT_WINDOWS.find((window) => window === value) ?? DEFAULT_INSIGHT_WINDOW;
}
