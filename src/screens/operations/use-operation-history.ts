import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { isApiError } from '../../api/api-error';
import { mergeOperationPages, operationQueries } from '../../api/operations';
import type { Operation, OperationsPage } from '../../api/schemas';
import { backoffDelay, nextListPollDelay } from '../../lib/operation-status';

const statusesOf = (operations: readonly Operation[]) => operations.map((op) => op.status);

const withNewest = (newest: OperationsPage | undefined, loaded: readonly OperationsPage[]) =>
  mergeOperationPages(newest ? [newest, ...loaded] : loaded);

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

  const latest = useQuery({
    ...operationQueries.latest(projectId),
    // Refreshed on focus and on return; polled only while something loaded is still in flight.
    enabled: history.isSuccess,
    // The first history page is the newest page: start from it rather than fetching it twice.
    initialData: () => queryClient.getQueryData(historyOptions.queryKey)?.pages[0],
    initialDataUpdatedAt: () => queryClient.getQueryState(historyOptions.queryKey)?.dataUpdatedAt,
    staleTime: intervalMs,
    refetchInterval: (query) => {
      const failures = query.state.fetchFailureCount;
      if (failures === 0) return nextListPollDelay(statusesOf(withNewest(query.state.data, loaded)), intervalMs);
      const reason = query.state.fetchFailureReason;
      return backoffDelay(failures, intervalMs, isApiError(reason) ? reason.retryAfterMs : undefined);
    },
  });

  const operations = useMemo(() => withNewest(latest.data, loaded), [latest.data, loaded]);

  return {
    history,
    latest,
    operations,
    isLive: nextListPollDelay(statusesOf(operations), intervalMs) !== false,
    reconnecting: latest.failureCount > 0 || latest.isRefetchError,
  };
}
