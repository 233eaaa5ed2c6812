import { queryOptions } from '@tanstack/react-query';
import { BranchesResponseSchema } from './schemas';
import { request } from './request';

export const branchQueries = {
  all: () => ['branches'] as const,
  list: (projectId: string) =>
    queryOptions({
      queryKey: [...branchQueries.all(), 'list', projectId] as const,
      queryFn: async ({ signal }) =>
        (await request(`/projects/${encodeURIComponent(projectId)}/branches`, BranchesResponseSchema, { signal })).branches,
      staleTime: 30_000,
    }),
};
