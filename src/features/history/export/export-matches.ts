// "Export everything that matches": once the walk has loaded the whole history (or back to the start
// of the time range), the matching operations are written page by page into a Blob that grows by one
// part per page, so the file is never also held as one long string beside the operations.
import type { Operation } from '../../../api/schemas';
import { saveFile } from '../../../lib/save-file';
import { CSV_HEADER, csvLine, exportedRow, exportFileName, ndjsonLine, type ExportNames } from './export-format';
import { operationFilter, type HistoryFilters } from '../../../model/filters';

export type MatchesFormat = 'csv' | 'ndjson';

const MIME: Record<MatchesFormat, string> = { csv: 'text/csv;charset=utf-8', ndjson: 'application/x-ndjson' };

/** The matching operations of `pages` (newest first, each once) as one file, and how many it holds. */
export function matchesFile(
  pages: readonly { operations: readonly Operation[] }[],
  filters: HistoryFilters,
  names: ExportNames,
  format: MatchesFormat,
): { blob: Blob; count: number } {
  const matches = operationFilter(filters);
  const line = format === 'csv' ? csvLine : ndjsonLine;
  const seen = new Set<string>();
  let blob = new Blob(format === 'csv' ? [CSV_HEADER] : [], { type: MIME[format] });
  let count = 0;
  for (const page of pages) {
    let part = '';
    for (const op of page.operations) {
      if (seen.has(op.id) || !matches(op)) continue;
      seen.add(op.id);
      part += line(exportedRow(op, names));
      count++;
    }
    if (part) blob = new Blob([blob, part], { type: MIME[format] });
  }
  return { blob, count };
}

export interface MatchesDownload extends ExportNames {
  projectId: string;
  pages: readonly { operations: readonly Operation[] }[];
  filters: HistoryFilters;
  format: MatchesFormat;
  exportedAt: Date;
}

/** Saves the matches as a download; returns how many operations it holds. */
export function downloadMatches({ projectId, pages, filters, format, exportedAt, ...names }: MatchesDownload): number {
  const { blob, count } = matchesFile(pages, filters, names, format);
  saveFile(blob, exportFileName(projectId, exportedAt, format, 'matches'));
  return count;
}
