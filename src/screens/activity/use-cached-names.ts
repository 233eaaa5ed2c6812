import { useQueryClient } from '@tanstack/react-query';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';

export interface CachedNames {
  branch: (projectId: string, branchId: string) => string | undefined;
  compute: (projectId: string, endpointId: string) => string | undefined;
}

/**
 * Branch and compute names the console already holds (a project's page read its branches and computes):
 * the activity view shows names where it can without spending its budget on them; ids elsewhere.
 * Read at render: the screen re-renders every second, so names read later show then.
 */
export function useCachedNames(): CachedNames {
  const client = useQueryClient();
  return {
    branch: (projectId, branchId) => client.getQueryData(branchQueries.list(projectId).queryKey)?.find((b) => b.id === branchId)?.name,
    compute: (projectId, endpointId) => {
      const endpoint = client.getQueryData(endpointQueries.list(projectId).queryKey)?.find((e) => e.id === endpointId);
      return endpoint ? (endpoint.name ?? endpoint.id) : undefined;
    },
  };
}
