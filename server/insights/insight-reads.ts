// The insights' figures as the wire carries them (src/api/insights-schemas.ts), assembled from the store's
// rows (server/store/insights.ts) under the definitions of src/model/insight-figures.ts:
// each condition the store counts by is one of the history's filters, so a figure and its link agree.
import type { Figures, InsightRow, InsightsOverview, InsightWindow, ProjectInsights } from '../../src/api/insights-schemas';
import {
  BUCKET_MS,
  bucketRanges,
  bucketUnitOf,
  FAILED_STATUSES,
  FINISHED_STATUSES,
  insightRange,
  rangeFilters,
  statusFilters,
  UNCOUNTED_STATUSES,
} from '../../src/model/insight-figures';
import type { Coverage } from '../store/archive-projects';
import type { Db } from '../store/db';
import { bucketRows, figureRows, type FigureConditions, type FigureRow } from '../store/insights';

/** A project the session's key can read: its id and its name as the API gave it. */
export interface NamedProject {
  id: string;
  name: string;
}

const NO_FIGURES: Figures = { runs: 0, failed: 0, uncounted: 0, retried: 0, p50Ms: null, p95Ms: null, timed: 0, queueP50Ms: null, queued: 0 };

function figuresOf(row: FigureRow | undefined): Figures {
  if (!row) return NO_FIGURES;
  return {
    runs: row.runs,
    failed: row.failed,
    uncounted: row.uncounted,
    retried: row.retried,
    p50Ms: row.p50_ms,
    p95Ms: row.p95_ms,
    timed: row.timed,
    queueP50Ms: row.queue_p50_ms,
    queued: row.queued,
  };
}

function conditionsFor(range: ReturnType<typeof insightRange>): FigureConditions {
  return {
    current: rangeFilters(range.current),
    previous: rangeFilters(range.previous),
    failed: statusFilters(FAILED_STATUSES),
    uncounted: statusFilters(UNCOUNTED_STATUSES),
    finished: statusFilters(FINISHED_STATUSES),
  };
}

/** One row per key seen in either window, the busiest (this window's runs) first. */
function rowsOf(rows: readonly FigureRow[], nameOf: (key: string) => string): InsightRow[] {
  const byKey = new Map<string, { current?: FigureRow; previous?: FigureRow }>();
  for (const row of rows) byKey.set(row.key, { ...byKey.get(row.key), [row.period]: row });
  return [...byKey.entries()]
    .map(([key, periods]) => ({ key, name: nameOf(key), current: figuresOf(periods.current), previous: figuresOf(periods.previous) }))
    .sort((a, b) => b.current.runs - a.current.runs || b.previous.runs - a.previous.runs || a.name.localeCompare(b.name));
}

/** Every project in `projects` (all readable by the session's key and archived), one row each, those without runs too. */
export async function readOverview(
  db: Db | undefined,
  projects: readonly NamedProject[],
  window: InsightWindow,
  now: number,
  ownKeyKept: boolean,
): Promise<InsightsOverview> {
  const range = insightRange(window, now);
  const rows = db
    ? await figureRows(
        db,
        projects.map((p) => p.id),
        'project',
        conditionsFor(range),
      )
    : [];
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const seen = rowsOf(rows, (id) => names.get(id) ?? id);
  const counted = new Set(seen.map((row) => row.key));
  const quiet = projects.filter((p) => !counted.has(p.id)).map((p) => ({ key: p.id, name: p.name, current: NO_FIGURES, previous: NO_FIGURES }));
  return { range, projects: [...seen, ...quiet.sort((a, b) => a.name.localeCompare(b.name))], ownKeyKept };
}

/** One project's figures per action and its operations per bucket; without coverage, the window and nothing counted. */
export async function readProjectInsights(
  db: Db | undefined,
  project: NamedProject,
  coverage: Coverage | undefined,
  window: InsightWindow,
  now: number,
  ownKeyKept: boolean,
): Promise<ProjectInsights> {
  const range = insightRange(window, now);
  const unit = bucketUnitOf(window);
  const size = BUCKET_MS[unit];
  const archive = coverage ? { backfilled: coverage.backfilled, lastReadAt: coverage.lastReadAt?.toISOString() ?? null } : null;
  const [rows, counts] =
    db && coverage
      ? await Promise.all([figureRows(db, [project.id], 'action', conditionsFor(range)), bucketRows(db, project.id, rangeFilters(range.current), size)])
      : [[], []];
  const byBucket = new Map<number, Record<string, number>>();
  for (const count of counts) byBucket.set(count.bucket, { ...byBucket.get(count.bucket), [count.status]: count.operations });
  const buckets = bucketRanges(range.current, unit).map((bucket) => ({ ...bucket, statuses: byBucket.get(Math.floor(Date.parse(bucket.from) / size)) ?? {} }));
  return { project, archive, ownKeyKept, range, actions: rowsOf(rows, (action) => action), bucket: unit, buckets };
}
