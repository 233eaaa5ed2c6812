// The browser half of the export, loaded with the serialiser on the first click: builds the file
// and saves it. A Blob and an <a download> need no inline script and no request, so the CSP allows it.
import { exportFileName, operationsToCsv, operationsToJson, type OperationsExport } from './export-operations';

export type ExportFormat = 'csv' | 'json';

const MIME: Record<ExportFormat, string> = { csv: 'text/csv;charset=utf-8', json: 'application/json' };

export function downloadOperations(format: ExportFormat, input: OperationsExport): void {
  const text = format === 'csv' ? operationsToCsv(input) : operationsToJson(input);
  const url = URL.createObjectURL(new Blob([text], { type: MIME[format] }));
  const link = document.createElement('a');
  link.href = url;
  link.download = exportFileName(input.projectId, input.exportedAt, format);
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download holds its own reference by now; the next task is soon enough to let go of ours.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
