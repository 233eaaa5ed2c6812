import { hashKey, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { archivedHistoryRefetchInterval, archivedOperations, archivedPage, archiveQueries, isNotArchived, type ArchiveFilterParams } from '../../api/archive';
import type { ArchiveCoverage } from '../../api/archive-schemas';
import { mergeCopies } from '../../api/operations';
import type { Operation } from '../../api/schemas';
import { filterOperations, isFiltered, searchWithFilters, type HistoryFilters } from '../../model/filters';
import { compareTimes } from '../../lib/format';
import { useShownInline } from '../../lib/inline-faults';

/**
 * Where a filtered history's matches come from: `off` (no filter), `asking` (the archive's first page
 * is on its way), `archive` (the console's record answers over the whole history, one request a page),
 * or `api`: the archive does not cover the project (it answers `archived: false`), no longer follows it (its kept keys
 * were refused: `stoppedAt`), or it could not answer, and the page walks the API as before.
 */
export type MatchesSource = 'off' | 'asking' | 'archive' | 'api';

export interface ArchivedMatches {
  source: MatchesSource;
  /** What matches, newest first: the archive's matches with any newer copy the page holds (only with `archive`). */
  operations: readonly Operation[];
  coverage: ArchiveCoverage | undefined;
  /** When the archive stopped following the project (ISO), when it did: newer operations are the API's alone. */
  stoppedAt: string | undefined;
  /** Why the archive did not answer when it failed (not when it does not cover the project): the page says so. */
  problem: unknown;
  /** The filter's parameters, as the archive is asked them. */
  params: ArchiveFilterParams;
  hasMore: boolean;
  /** How many match in all, when the archive said so (its first page, when there are more). */
  total: number | undefined;
  loadingMore: boolean;
  loadMore: () => void;
  retry: () => void;
}

/** The filters as the history's address writes them: the archive reads the very same parameters. */
export function archiveParams(filters: HistoryFilters): ArchiveFilterParams {
  return Object.fromEntries(searchWithFilters(new URLSearchParams(), filters));
}

/**
 * The archive's answer to a history's filters, asked while a filter is set. The loaded operations (the
 * API's live history) add their newer copies and any newer match the archive has not read yet, within
 * the range of the archive's loaded pages; the whole is filtered again so a copy that no longer matches
 * leaves, exactly as in the walk's view.
 */
export function useArchivedMatches(projectId: string, filters: HistoryFilters, loaded: readonly Operation[], intervalMs: number): ArchivedMatches {
  const filtered = isFiltered(filters);
  const params = useMemo(() => archiveParams(filters), [filters]);
  const archiveOptions = archiveQueries.operations(projectId, params);
  const archive = useInfiniteQuery({
    ...archiveOptions,
    enabled: filtered,
    refetchInterval: archivedHistoryRefetchInterval(intervalMs),
  });
  const notArchived = isNotArchived(archive.data);
  const failing = archive.data === undefined && (archive.isError || archive.failureCount > 0);
  // ArchiveStatus says what is down and what the page does instead: no page-wide "Could not load" says it again.
  useShownInline(filtered && failing ? hashKey(archiveOptions.queryKey) : undefined);
  const stoppedAt = archivedPage(archive.data?.pages[0])?.archive.stoppedAt;
  const source: MatchesSource = !filtered ? 'off' : notArchived || failing || stoppedAt !== undefined ? 'api' : archive.data ? 'archive' : 'asking';

  const hasMore = archive.hasNextPage;
  const operations = useMemo(() => {
    if (source !== 'archive') return [];
    const fromArchive = archivedOperations(archive.data);
    const oldest = fromArchive.at(-1);
    const live = filterOperations(loaded, filters).filter((op) => !hasMore || !oldest || compareTimes(op.created_at, oldest.created_at) >= 0);
    return [...filterOperations(mergeCopies(fromArchive, live), filters)].sort((a, b) => compareTimes(b.created_at, a.created_at));
  }, [source, archive.data, loaded, filters, hasMore]);

  return {
    source,
    operations,
    coverage: archivedPage(archive.data?.pages[0])?.archive,
    stoppedAt,
    problem: failing ? (archive.error ?? archive.failureReason) : null,
    params,
    hasMore,
    total: archivedPage(archive.data?.pages[0])?.total,
    loadingMore: archive.isFetchingNextPage,
    loadMore: () => void archive.fetchNextPage(),
    retry: () => void archive.refetch(),
  };
}
