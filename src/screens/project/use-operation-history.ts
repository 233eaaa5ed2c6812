import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { mergeOperationPages, operationQueries } from '../../api/operations';
import { delayAfterFailedPolls } from '../../api/polling';
import type { Operation, OperationsPage } from '../../api/schemas';
import { nextListPollDelay, SLOW_POLL_INTERVAL_MS } from '../../lib/operation-status';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';

const statusesOf = (operations: readonly Operation[]) => operations.map((op) => op.status);

const withNewest = (newest: OperationsPage | undefined, loaded: readonly OperationsPage[]) =>
  mergeOperationPages(newest ? [newest, ...loaded] : loaded);

/** Live pace while the newest page has work in flight; otherwise a slow refresh for new arrivals. */
function refreshDelay(newest: OperationsPage | undefined, intervalMs: number): number {
  const live = newest ? nextListPollDelay(statusesOf(newest.operations), intervalMs) : false;
  return live === false ? Math.max(intervalMs, SLOW_POLL_INTERVAL_MS) : live;
}

/**
 * A project's history: pages loaded by cursor on demand, plus the newest page polled at the chosen
 * interval while an operation on it is in flight (the poll can only refresh those), and slowly
 * otherwise so new operations still appear. The poll is one request however many pages are loaded;
 * its rows replace their older copies in place and new operations appear on top. The watch list
 * polls the same query; the poll-sharing layer lets one of them (in one tab) run the timer.
 */
export function useOperationHistory(projectId: string, intervalMs: number) {
  const queryClient = useQueryClient();
  const historyOptions = operationQueries.history(projectId);
  const history = useInfiniteQuery(historyOptions);
  const loaded = useMemo(() => history.data?.pages ?? [], [history.data]);
  const latestOptions = operationQueries.latest(projectId);
  const refetchInterval = useSharedPoll<OperationsPage, Error>({
    queryKey: latestOptions.queryKey,
    delay: (state) => delayAfterFailedPolls(state, intervalMs) ?? refreshDelay(state.data, intervalMs),
  });

  const latest = useQuery({
    ...latestOptions,
    enabled: history.isSuccess,
    // The first history page is the newest page: start from it rather than fetching it twice.
    initialData: () => queryClient.getQueryData(historyOptions.queryKey)?.pages[0],
    initialDataUpdatedAt: () => queryClient.getQueryState(historyOptions.queryKey)?.dataUpdatedAt,
    staleTime: intervalMs,
    refetchInterval,
  });

  const operations = useMemo(() => withNewest(latest.data, loaded), [latest.data, loaded]);

  return {
    history,
    latest,
    operations,
    isLive: latest.data ? nextListPollDelay(statusesOf(latest.data.operations), intervalMs) !== false : false,
    reconnecting: latest.failureCount > 0 || latest.isRefetchError,
  };
}
