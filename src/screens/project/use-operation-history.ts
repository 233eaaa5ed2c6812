import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { historyOperations, OPERATIONS_PAGE_SIZE, operationQueries } from '../../api/operations';
import { nextRequestDelay } from '../../api/retry-policy';
import type { Operation, OperationsPage } from '../../api/schemas';
import { nextListPollDelay, SLOW_POLL_INTERVAL_MS } from '../../lib/operation-status';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';

/** Live pace while an operation among the newest is in flight; otherwise a slow refresh for new arrivals. */
function refreshDelay(newest: readonly Operation[], intervalMs: number, now = Date.now()): number {
  const live = nextListPollDelay(newest, intervalMs, now);
  return live === false ? Math.max(intervalMs, SLOW_POLL_INTERVAL_MS) : live;
}

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
    delay: (state) => nextRequestDelay(state, refreshDelay(newest, intervalMs)),
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
    reconnecting: latest.failureCount > 0 || latest.isRefetchError,
  };
}
