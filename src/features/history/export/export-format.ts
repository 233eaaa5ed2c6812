// Turns a project's operations into the files the Export buttons download: CSV, JSON, and NDJSON (one
// object a line, for long histories written page by page). Pure: it is handed everything it writes,
// so nothing it is not given (the API key, say) can end up in a file.
import type { Operation } from '../../../api/schemas';
import { humanizeAction } from '../../../lib/format';
import { statusLabel } from '../../../model/operation-status';
import { csvCell } from '../../../lib/csv-cell';

/** The names shown for branches and computes, written beside their ids. */
export interface ExportNames {
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
}

export interface OperationsExport extends ExportNames {
  projectId: string;
  projectName: string | undefined;
  operations: readonly Operation[];
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

export function exportedRow(op: Operation, { branchNames, computeNames }: ExportNames): ExportedOperation {
  return {
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
  };
}

/** Each operation once, in table order (the history store holds each once; should a list repeat one, its first copy wins). */
export function exportedOperations({ operations, ...names }: Pick<OperationsExport, 'operations' | keyof ExportNames>): ExportedOperation[] {
  const seen = new Set<string>();
  const rows: ExportedOperation[] = [];
  for (const op of operations) {
    if (seen.has(op.id)) continue;
    seen.add(op.id);
    rows.push(exportedRow(op, names));
  }
  return rows;
}

/** The CSV header line, CRLF-ended. */
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

/** One row as an RFC 4180 CSV line, CRLF-ended. */
export function csvLine(row: ExportedOperation): string {
  return `${CSV_COLUMNS.map((column) => csvCell(row[column])).join(',')}\r\n`;
}

/** One row as an NDJSON line. */
export function ndjsonLine(row: ExportedOperation): string {
  return `${JSON.stringify(row)}\n`;
}

/** RFC 4180 CSV with a header row and CRLF line ends, as spreadsheets expect. */
export function operationsToCsv(input: OperationsExport): string {
  return CSV_HEADER + exportedOperations(input).map(csvLine).join('');
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
export function exportFileName(projectId: string, exportedAt: Date, extension: 'csv' | 'json' | 'ndjson', qualifier?: string): string {
  const project = projectId.replace(/[^A-Za-z0-9_-]+/g, '-');
  const stamp = exportedAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `operations-${project}${qualifier ? `-${qualifier}` : ''}-${stamp}.${extension}`;
}
