import { useState } from 'react';
import type { Operation } from '../../api/schemas';

interface ExportButtonsProps {
  projectId: string;
  projectName: string | undefined;
  operations: readonly Operation[];
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
}

type Format = 'csv' | 'json';

const MIME: Record<Format, string> = { csv: 'text/csv;charset=utf-8', json: 'application/json' };

// A Blob and an <a download> save a file with no inline script and no request: nothing the CSP blocks.
function saveFile(name: string, text: string, format: Format): void {
  const url = URL.createObjectURL(new Blob([text], { type: MIME[format] }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference by now; the next task is soon enough to let go of ours.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Downloads the operations loaded so far (every "Load more" page included) as CSV or JSON. */
export function ExportButtons({ projectId, projectName, operations, branchNames, computeNames }: ExportButtonsProps) {
  const [failure, setFailure] = useState<string | null>(null);

  const download = async (format: Format) => {
    setFailure(null);
    try {
      // Loaded on the first click: the serialiser costs nothing on the screen's first paint.
      const { exportFileName, operationsToCsv, operationsToJson } = await import('./export-operations');
      const input = { projectId, projectName, operations, branchNames, computeNames, exportedAt: new Date() };
      const text = format === 'csv' ? operationsToCsv(input) : operationsToJson(input);
      saveFile(exportFileName(projectId, input.exportedAt, format), text, format);
    } catch {
      setFailure('Could not prepare the export. Reload the page and try again.');
    }
  };

  const disabled = operations.length === 0;
  return (
    <span role="group" aria-label="Export loaded operations">
      <button type="button" disabled={disabled} onClick={() => void download('csv')}>
        Export CSV
      </button>{' '}
      <button type="button" disabled={disabled} onClick={() => void download('json')}>
        Export JSON
      </button>
      {failure && <span role="alert">{failure}</span>}
    </span>
  );
}
