import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { walkEnded } from '../../../api/history-walk';
import { operationQueries } from '../../../api/operations';
import { formatCount } from '../../../lib/format';
import { downloadMatches, type MatchesFormat } from './export-matches';
import type { ExportNames } from './export-format';
import type { HistoryFilters } from '../filters/filters';

export interface MatchesExport {
  /** The format waiting for the walk to finish; null when no export is under way. */
  pending: MatchesFormat | null;
  /** What the last export did, in words. */
  result: string;
  start: (format: MatchesFormat) => void;
  cancel: () => void;
  /** For the walk: it has loaded all it needs, so a waiting export writes its file. */
  onWalkEnded: () => void;
}

/**
 * "Export everything that matches": writes the file at once when the history is already loaded as far
 * as the filters need, or else waits for the walk (which the caller runs while `pending`) to get there.
 */
export function useMatchesExport(projectId: string, filters: HistoryFilters, names: ExportNames): MatchesExport {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<MatchesFormat | null>(null);
  const [result, setResult] = useState('');

  const write = (format: MatchesFormat) => {
    const history = queryClient.getQueryData(operationQueries.history(projectId).queryKey);
    if (!history) return;
    try {
      const count = downloadMatches({ projectId, pages: history.pages, filters, format, exportedAt: new Date(), ...names });
      setResult(`Exported ${formatCount(count)} matching ${count === 1 ? 'operation' : 'operations'} as ${format === 'csv' ? 'CSV' : 'NDJSON'}.`);
    } catch {
      setResult('Could not write the export. Reload the page and try again.');
    }
  };

  return {
    pending,
    result,
    start: (format) => {
      setResult('');
      const history = queryClient.getQueryData(operationQueries.history(projectId).queryKey);
      if (history && walkEnded(history, filters.from)) {
        write(format);
      } else {
        setPending(format);
      }
    },
    cancel: () => setPending(null),
    onWalkEnded: () => {
      if (pending === null) return;
      setPending(null);
      write(pending);
    },
  };
}
