import type { QueryClient } from '@tanstack/react-query';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';
import { cachedOperations } from '../../api/operations';
import type { WatchStore } from './watch-store';

/**
 * Feeds the watch list from the query cache: any operation fetched anywhere (history poll, detail
 * screen, watch poll) updates its watched copy. When one ends, its project's branches and computes
 * have changed, so their lists are refetched where shown.
 */
export function connectWatchToQueries(store: WatchStore, queryClient: QueryClient): void {
  queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    const query = queryClient.getQueryCache().get(event.query.queryHash);
    const operations = query ? cachedOperations(queryClient, query.queryKey) : [];
    if (operations.length) store.update(operations);
  });
  store.onSettled((events) => {
    const projects = new Set(events.filter((e) => e.kind === 'ended').map((e) => e.entry.operation.project_id));
    // A hidden tab (fed by a visible one) only marks them stale: it refetches them when shown, not now.
    const refetchType = document.visibilityState === 'hidden' ? 'none' : 'active';
    for (const projectId of projects) {
      void queryClient.invalidateQueries({ queryKey: branchQueries.list(projectId).queryKey, refetchType });
      void queryClient.invalidateQueries({ queryKey: endpointQueries.list(projectId).queryKey, refetchType });
    }
  });
}
