import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { historyOperations, OPERATIONS_PAGE_SIZE, operationQueries } from '../../api/operations';
import { historyRefreshDelay, nextListPollDelay, nextRequestDelay } from '../../api/retry-policy';
import type { OperationsPage } from '../../api/schemas';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';

/**
 * A project's history: the one store (the history query) the screen renders, pages loaded by cursor
 * on demand. Its newest page is refreshed at the chosen interval while an operation among the newest
 * is in flight, and slowly otherwise so new operations still appear; each refresh is one request
 * however many pages are loaded, and is spliced into the history in the cache (api/operation-history.ts).
 * The watch list polls the same newest page; the poll-sharing layer lets one of them (in one tab) run the timer.
 */
export function useOperationHistory(projectId: string, intervalMs: number, now: number) {
  const queryClient = useQueryClient();
  const historyOptions = operationQueries.history(projectId);
  const history = useInfiniteQuery(historyOptions);
  const operations = useMemo(() => historyOperations(history.data), [history.data]);
  const newest = useMemo(() => operations.slice(0, OPERATIONS_PAGE_SIZE), [operations]);
  const latestOptions = operationQueries.latest(projectId);
  const refetchInterval = useSharedPoll<OperationsPage, Error>({
    queryKey: latestOptions.queryKey,
    delay: (state) => nextRequestDelay(state, historyRefreshDelay(newest, intervalMs)),
  });

  const latest = useQuery({
    ...latestOptions,
    enabled: history.isSuccess,
    // The history's newest operations are the newest page as last fetched: no second request for it.
    initialData: (): OperationsPage | undefined => {
      const loaded = queryClient.getQueryData(historyOptions.queryKey);
      return loaded ? { operations: historyOperations(loaded).slice(0, OPERATIONS_PAGE_SIZE) } : undefined;
    },
    initialDataUpdatedAt: () => queryClient.getQueryState(historyOptions.queryKey)?.dataUpdatedAt,
    staleTime: intervalMs,
    refetchInterval,
  });

  return {
    history,
    operations,
    isLive: nextListPollDelay(newest, intervalMs, now) !== false,
    /** How often the newest page is refreshed now: what the toolbar says. */
    refreshMs: historyRefreshDelay(newest, intervalMs, now),
    reconnecting: latest.failureCount > 0 || latest.isRefetchError,
  };
}
