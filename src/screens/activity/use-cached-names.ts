import { useQueries } from '@tanstack/react-query';
import { useMemo } from 'react';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';

export interface CachedNames {
  branch: (projectId: string, branchId: string) => string | undefined;
  compute: (projectId: string, endpointId: string) => string | undefined;
}

/** Names change rarely: each project's lists are read once in this long, however often the rows move. */
const NAMES_STALE_MS = 10 * 60_000;

/**
 * Branch and compute names of the projects the rows show, read the way the project page reads them (the
 * branches and endpoints lists, one React Query cache, so a project page opened before costs nothing here);
 * the id until a list has answered, or when it does not name it. Projects the archive answers for are never read
 * from the API for their names (Activity then sends it no request): only a list already cached names them.
 */
export function useCachedNames(projectIds: readonly string[], archived: ReadonlySet<string>): CachedNames {
  const ids = useMemo(() => [...new Set(projectIds)].sort(), [projectIds]);
  const options = { staleTime: NAMES_STALE_MS, refetchOnWindowFocus: false, retry: false } as const;
  const branches = useQueries({ queries: ids.map((id) => ({ ...branchQueries.list(id), ...options, enabled: !archived.has(id) })) });
  const endpoints = useQueries({ queries: ids.map((id) => ({ ...endpointQueries.list(id), ...options, enabled: !archived.has(id) })) });
  // Rebuilt each render (a few projects' lists): the screen re-renders every second, and names show as soon as a list lands.
  const branchNames = new Map(ids.map((id, i) => [id, new Map(branches[i]?.data?.map((b) => [b.id, b.name]))]));
  const computeNames = new Map(ids.map((id, i) => [id, new Map(endpoints[i]?.data?.map((e) => [e.id, e.name ?? e.id]))]));
  return {
    branch: (projectId, branchId) => branchNames.get(projectId)?.get(branchId),
    compute: (projectId, endpointId) => computeNames.get(projectId)?.get(endpointId),
  };
}
