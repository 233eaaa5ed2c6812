import { useState } from 'react';
import type { ExportFormat } from './export-download';
import type { OperationsExport } from './export-format';

/** Downloads the operations loaded so far (every "Load more" page included) as CSV or JSON. */
export function ExportButtons({ projectId, projectName, operations, branchNames, computeNames }: Omit<OperationsExport, 'exportedAt'>) {
  const [failed, setFailed] = useState(false);

  const download = async (format: ExportFormat) => {
    setFailed(false);
    try {
      // Loaded on the first click: the serialiser costs nothing on the screen's first paint.
      const { downloadOperations } = await import('./export-download');
      downloadOperations(format, { projectId, projectName, operations, branchNames, computeNames, exportedAt: new Date() });
    } catch {
      setFailed(true);
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
      {failed && <span role="alert"> Could not prepare the export. Reload the page and try again.</span>}
    </span>
  );
}
