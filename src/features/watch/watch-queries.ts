import type { QueryClient } from '@tanstack/react-query';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';
import { operationsIn } from '../../api/operations';
import { readMeta } from '../../api/query-meta';
import type { WatchStore } from './watch-store';

/**
 * Feeds the watch list from the query cache: any operation fetched anywhere (history poll, detail
 * screen, watch poll) updates its watched copy. When one ends, its project's branches and computes
 * have changed, so their lists are refetched where shown.
 */
export function connectWatchToQueries(store: WatchStore, queryClient: QueryClient): void {
  queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    const meta = readMeta(event.query.meta);
    // A history's own splices come from newest pages, which were read here already.
    if (!meta || (meta.data === 'history' && event.action.manual)) return;
    const operations = operationsIn(queryClient, meta);
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
