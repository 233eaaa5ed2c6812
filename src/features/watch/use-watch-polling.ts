import { queryOptions, useQueries } from '@tanstack/react-query';
import { useMemo } from 'react';
import { operationQueries } from '../../api/operations';
import { nextListPollDelay, nextPollDelay, nextRequestDelay } from '../../api/retry-policy';
import type { Operation, OperationsPage } from '../../api/schemas';
import { isInFlight } from '../../model/operation-status';
import { useSharedPolls } from '../../lib/poll-sharing/use-shared-polls';
import type { WatchEntry, WatchState } from './watch-store';

function liveByProject(state: WatchState, now: number): Map<string, WatchEntry[]> {
  const byProject = new Map<string, WatchEntry[]>();
  for (const group of state.groups) {
    for (const entry of group.entries) {
      if (!isInFlight(entry.operation, now)) continue;
      const list = byProject.get(entry.operation.project_id) ?? [];
      list.push(entry);
      byProject.set(entry.operation.project_id, list);
    }
  }
  return byProject;
}

/**
 * Keeps every unfinished watched operation fresh with as few requests as possible: per project, the
 * newest page (the same query the history screen polls, so the two share each request), and a
 * single get only for an operation that page does not hold. A project whose watched operations
 * are all over (as of `now`, and at each poll) is not polled at all; React Query pauses the rest
 * while the tab is hidden. Each timer runs through the poll-sharing layer, so a key another
 * observer or tab polls is only read.
 */
export function useWatchPolling(state: WatchState, intervalMs: number, now: number): void {
  const live = useMemo(() => liveByProject(state, now), [state, now]);
  const projectIds = [...live.keys()];

  const pageIntervals = useSharedPolls<OperationsPage, Error>(
    projectIds.map((projectId) => ({
      queryKey: operationQueries.latest(projectId).queryKey,
      delay: (state) =>
        nextRequestDelay(
          state,
          nextListPollDelay(
            (live.get(projectId) ?? []).map((e) => e.operation),
            intervalMs,
          ),
        ),
    })),
  );
  const pages = useQueries({
    queries: projectIds.map((projectId, i) =>
      queryOptions({
        ...operationQueries.latest(projectId),
        staleTime: intervalMs,
        refetchInterval: pageIntervals[i] ?? false,
      }),
    ),
  });

  const offPage = projectIds.flatMap((projectId, i) => {
    const page = pages[i];
    if (!page?.data) return [];
    const onPage = new Set(page.data.operations.map((op) => op.id));
    // Only a page fetched after watching began can tell that an operation is not on it.
    return (live.get(projectId) ?? []).filter((e) => e.watchedAt <= page.dataUpdatedAt && !onPage.has(e.operation.id));
  });

  const detailIntervals = useSharedPolls<Operation, Error>(
    offPage.map((entry) => ({
      queryKey: operationQueries.detail(entry.operation.project_id, entry.operation.id).queryKey,
      delay: (state) => nextRequestDelay(state, nextPollDelay(entry.operation, intervalMs)),
    })),
  );
  useQueries({
    queries: offPage.map((entry, i) =>
      queryOptions({
        ...operationQueries.detail(entry.operation.project_id, entry.operation.id),
        staleTime: intervalMs,
        refetchInterval: detailIntervals[i] ?? false,
      }),
    ),
  });
}
