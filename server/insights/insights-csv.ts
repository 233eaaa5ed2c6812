// An insights table as CSV (`?format=csv` on its route, a plain link on the page): one line per row, the
// window's figures then the previous window's, raw (milliseconds, counts, rates as fractions), each cell written
// as every CSV of the console writes one (src/features/history/export/export-format.ts).
import type { Figures, InsightRange, InsightRow } from '../../src/api/insights-schemas';
import { csvCell } from '../../src/lib/csv-cell';
import { failureRate, retriedShare } from '../../src/model/insight-figures';

const FIGURE_COLUMNS = ['runs', 'failed', 'failure_rate', 'p50_ms', 'p95_ms', 'queue_p50_ms', 'retried', 'retried_share'] as const;

function figureCells(figures: Figures): (number | null)[] {
  return [figures.runs, figures.failed, failureRate(figures), figures.p50Ms, figures.p95Ms, figures.queueP50Ms, figures.retried, retriedShare(figures)];
}

const line = (cells: readonly (string | number | null)[]) => `${cells.map(csvCell).join(',')}\r\n`;

/** `rows` keyed by action (`action`) or by project (`project_id`, `project_name`). */
export function insightsCsv(rows: readonly InsightRow[], range: InsightRange, keyedBy: 'action' | 'project'): string {
  const keyColumns = keyedBy === 'action' ? ['action'] : ['project_id', 'project_name'];
  const header = [...keyColumns, ...FIGURE_COLUMNS, ...FIGURE_COLUMNS.map((column) => `previous_${column}`), 'from', 'to', 'previous_from', 'previous_to'];
  const windows = [range.current.from, range.current.to, range.previous.from, range.previous.to];
  return (
    line(header) +
    rows
      .map((row) => line([...(keyedBy === 'action' ? [row.key] : [row.key, row.name]), ...figureCells(row.current), ...figureCells(row.previous), ...windows]))
      .join('')
  );
}

/** `insights-<what>-7d-20261122T120005Z.csv`: safe on every file system, sorts by time. */
export function insightsCsvName(what: string, range: InsightRange): string {
  const name = what.replace(/[^A-Za-z0-9_-]+/g, '-');
  const stamp = range.current.to.replace(/[-:]/g, '');
  return `insights-${name}-${range.window}-${stamp}.csv`;
}
