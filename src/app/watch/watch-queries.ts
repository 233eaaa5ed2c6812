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
    for (const projectId of projects) {
      void queryClient.invalidateQueries({ queryKey: branchQueries.list(projectId).queryKey });
      void queryClient.invalidateQueries({ queryKey: endpointQueries.list(projectId).queryKey });
    }
  });
}
