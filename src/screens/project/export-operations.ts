// Turns the loaded operations of a project into the files the Export buttons download. Pure: it is
// handed everything it writes, so nothing it is not given (the API key, say) can end up in a file.
import { humanizeAction } from '../../lib/format';
import { statusLabel } from '../../lib/operation-status';
import type { OperationsView } from './operations-view';

export interface OperationsExport extends OperationsView {
  exportedAt: Date;
}

/** One exported row: the API's raw values next to what the console shows for them. */
export interface ExportedOperation {
  id: string;
  action: string;
  action_label: string;
  status: string;
  status_label: string;
  branch_id: string | null;
  branch_name: string | null;
  endpoint_id: string | null;
  compute_name: string | null;
  created_at: string;
  updated_at: string;
  total_duration_ms: number;
  failures_count: number;
  retry_at: string | null;
  error: string | null;
}

export const CSV_COLUMNS = [
  'id',
  'action',
  'action_label',
  'status',
  'status_label',
  'branch_id',
  'branch_name',
  'endpoint_id',
  'compute_name',
  'created_at',
  'updated_at',
  'total_duration_ms',
  'failures_count',
  'retry_at',
  'error',
] as const satisfies readonly (keyof ExportedOperation)[];

/** Each operation once, in table order (the history store holds each once; should a list repeat one, its first copy wins). */
export function exportedOperations({ operations, branchNames, computeNames }: OperationsExport): ExportedOperation[] {
  const seen = new Set<string>();
  const rows: ExportedOperation[] = [];
  for (const op of operations) {
    if (seen.has(op.id)) continue;
    seen.add(op.id);
    rows.push({
      id: op.id,
      action: op.action,
      action_label: humanizeAction(op.action),
      status: op.status,
      status_label: statusLabel(op.status),
      branch_id: op.branch_id ?? null,
      branch_name: op.branch_id ? (branchNames.get(op.branch_id) ?? null) : null,
      endpoint_id: op.endpoint_id ?? null,
      compute_name: op.endpoint_id ? (computeNames.get(op.endpoint_id) ?? null) : null,
      created_at: op.created_at,
      updated_at: op.updated_at,
      total_duration_ms: op.total_duration_ms,
      failures_count: op.failures_count,
      retry_at: op.retry_at ?? null,
      error: op.error ?? null,
    });
  }
  return rows;
}

// A spreadsheet runs a cell starting with one of these as a formula (CSV injection); a leading
// apostrophe makes it text. Only text from the API is touched, never the numbers we write.
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV with a header row and CRLF line ends, as spreadsheets expect. */
export function operationsToCsv(input: OperationsExport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of exportedOperations(input)) lines.push(CSV_COLUMNS.map((column) => csvCell(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function operationsToJson(input: OperationsExport): string {
  const document = {
    project: { id: input.projectId, name: input.projectName ?? null },
    exported_at: input.exportedAt.toISOString(),
    operations: exportedOperations(input),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** `operations-<project>-20261122T120005Z.csv`: safe on every file system, sorts by time. */
export function exportFileName(projectId: string, exportedAt: Date, extension: 'csv' | 'json'): string {
  const project = projectId.replace(/[^A-Za-z0-9_-]+/g, '-');
  const stamp = exportedAt.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `operations-${project}-${stamp}.${extension}`;
}
