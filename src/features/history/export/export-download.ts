// The browser half of the export, loaded with the serialiser on the first click: builds the file and saves it.
import { exportFileName, operationsToCsv, operationsToJson, type OperationsExport } from './export-format';
import { saveFile } from '../../../lib/save-file';

export type ExportFormat = 'csv' | 'json';

const MIME: Record<ExportFormat, string> = { csv: 'text/csv;charset=utf-8', json: 'application/json' };

export function downloadOperations(format: ExportFormat, input: OperationsExport): void {
  const text = format === 'csv' ? operationsToCsv(input) : operationsToJson(input);
  saveFile(new Blob([text], { type: MIME[format] }), exportFileName(input.projectId, input.exportedAt, format));
}
