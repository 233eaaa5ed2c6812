import { queryOptions } from '@tanstack/react-query';
import { EndpointsResponseSchema } from './schemas';
import { request } from './request';

export const endpointQueries = {
  all: () => ['endpoints'] as const,
  list: (projectId: string) =>
    queryOptions({
      queryKey: [...endpointQueries.all(), 'list', projectId] as const,
      queryFn: async ({ signal }) =>
        (await request(`/projects/${encodeURIComponent(projectId)}/endpoints`, EndpointsResponseSchema, { signal })).endpoints,
      staleTime: 30_000,
    }),
};
