import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { isApiError } from '../../api/api-error';
import { mergeOperationPages, operationQueries } from '../../api/operations';
import { backoffDelay, nextListPollDelay } from '../../lib/operation-status';

/**
 * A project's history: pages loaded by cursor on demand, plus the newest page polled while any
 * loaded operation is still in flight. The poll is one request however many pages are loaded;
 * its rows replace their older copies in place and new operations appear on top.
 */
export function useOperationHistory(projectId: string, intervalMs: number) {
  const queryClient = useQueryClient();
  const historyOptions = operationQueries.history(projectId);
  const history = useInfiniteQuery(historyOptions);

  const loaded = useMemo(() => history.data?.pages ?? [], [history.data]);
  const historyRows = useMemo(() => mergeOperationPages(loaded), [loaded]);
  const pollDelay = nextListPollDelay(
    historyRows.map((op) => op.status),
    intervalMs,
  );

  const latest = useQuery({
    ...operationQueries.latest(projectId),
    // Always refreshed on focus and on return; polled only while something is in flight.
    enabled: history.isSuccess,
    // The first history page is the newest page: start from it rather than fetching it twice.
    initialData: () => queryClient.getQueryData(historyOptions.queryKey)?.pages[0],
    initialDataUpdatedAt: () => queryClient.getQueryState(historyOptions.queryKey)?.dataUpdatedAt,
    staleTime: intervalMs,
    refetchInterval: (query) => {
      const failures = query.state.fetchFailureCount;
      if (failures === 0) return pollDelay;
      const reason = query.state.fetchFailureReason;
      return backoffDelay(failures, intervalMs, isApiError(reason) ? reason.retryAfterMs : undefined);
    },
  });

  const operations = useMemo(
    () => (latest.data ? mergeOperationPages([latest.data, ...loaded]) : historyRows),
    [latest.data, loaded, historyRows],
  );

  return {
    history,
    latest,
    operations,
    isLive: pollDelay !== false,
    reconnecting: latest.failureCount > 0 || latest.isRefetchError,
  };
}
