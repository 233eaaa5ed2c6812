import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { archiveQueries, type ArchiveFilterParams } from '../../../api/archive';
import { walkEnded } from '../../../api/history-walk';
import { operationQueries } from '../../../api/operations';
import type { Operation } from '../../../api/schemas';
import { formatCount } from '../../../lib/format';
import { downloadMatches, type MatchesFormat } from './export-matches';
import type { ExportNames } from './export-format';
import type { HistoryFilters } from '../../../model/filters';

export interface MatchesExport {
  /** The format waiting for the walk (or the archive) to finish; null when no export is under way. */
  pending: MatchesFormat | null;
  /** What the last export did, in words. */
  result: string;
  start: (format: MatchesFormat) => void;
  cancel: () => void;
  /** For the walk: it has loaded all it needs, so a waiting export writes its file. */
  onWalkEnded: () => void;
}

type Pages = readonly { operations: readonly Operation[] }[];

/**
 * "Export everything that matches": writes the file at once when the history is already loaded as far
 * as the filters need, or else waits for the walk (which the caller runs while `pending`) to get there.
 * When the archive answers the filters (`archive` given), the file holds the archive's matches, read
 * page by page from the console's server: no walk over the API.
 */
export function useMatchesExport(projectId: string, filters: HistoryFilters, names: ExportNames, archive: ArchiveFilterParams | null = null): MatchesExport {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<MatchesFormat | null>(null);
  const [result, setResult] = useState('');
  /** Stops the archive's read under way, if any. */
  const reading = useRef<(() => void) | null>(null);

  const write = (format: MatchesFormat, pages: Pages) => {
    try {
      const count = downloadMatches({ projectId, pages, filters, format, exportedAt: new Date(), ...names });
      setResult(`Exported ${formatCount(count)} matching ${count === 1 ? 'operation' : 'operations'} as ${format === 'csv' ? 'CSV' : 'NDJSON'}.`);
    } catch {
      setResult('Could not write the export. Reload the page and try again.');
    }
  };
  const writeLoaded = (format: MatchesFormat) => {
    const history = queryClient.getQueryData(operationQueries.history(projectId).queryKey);
    if (history) write(format, history.pages);
  };

  // Read through the query client, so a 401 ends the session and a busy server is waited out, as for every other read.
  const fromArchive = (format: MatchesFormat, params: ArchiveFilterParams) => {
    const query = archiveQueries.export(projectId, params);
    let cancelled = false;
    reading.current = () => {
      cancelled = true;
      void queryClient.cancelQueries({ queryKey: query.queryKey });
    };
    setPending(format);
    queryClient.query(query).then(
      (pages) => {
        if (cancelled) return;
        write(format, pages);
        setPending(null);
      },
      (error: unknown) => {
        if (cancelled) return;
        setResult(`Could not read the matches from the archive: ${error instanceof Error ? error.message : String(error)}`);
        setPending(null);
      },
    );
  };

  return {
    pending,
    result,
    start: (format) => {
      setResult('');
      if (archive) {
        fromArchive(format, archive);
        return;
      }
      const history = queryClient.getQueryData(operationQueries.history(projectId).queryKey);
      if (history && walkEnded(history, filters.from)) {
        writeLoaded(format);
      } else {
        setPending(format);
      }
    },
    cancel: () => {
      reading.current?.();
      reading.current = null;
      setPending(null);
    },
    onWalkEnded: () => {
      if (pending === null) return;
      setPending(null);
      writeLoaded(pending);
    },
  };
}
