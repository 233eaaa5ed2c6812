import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type * as z from 'zod/mini';
import { retryWhileLocked, useLockedRetryBase, type Abortable, type StartOptions } from './locked-retry';
import { invalidateLatestOperations } from './operations';
import { EndpointOperationsSchema, EndpointsResponseSchema } from './schemas';
import { callOf, transportOf } from './query-transport';
import { request, type Call } from './request';

export const endpointQueries = {
  all: () => ['endpoints'] as const,
  list: (projectId: string) =>
    queryOptions({
      queryKey: [...endpointQueries.all(), 'list', projectId] as const,
      queryFn: async (context) => (await request(`/projects/${encodeURIComponent(projectId)}/endpoints`, EndpointsResponseSchema, callOf(context))).endpoints,
      staleTime: 30_000,
    }),
};

export type EndpointAction = 'start' | 'suspend' | 'restart';
export type EndpointActionResult = z.infer<typeof EndpointOperationsSchema>;

export function runEndpointAction(projectId: string, endpointId: string, action: EndpointAction, call: Call = {}): Promise<EndpointActionResult> {
  return request(`/projects/${encodeURIComponent(projectId)}/endpoints/${encodeURIComponent(endpointId)}/${action}`, EndpointOperationsSchema, {
    method: 'POST',
    ...call,
  });
}

export type EndpointActionVariables = { endpointId: string; action: EndpointAction } & Abortable;

/** Start, suspend or restart one compute of the project. */
export function useEndpointAction(projectId: string, { onStarted }: StartOptions<EndpointActionResult, EndpointActionVariables> = {}) {
  const queryClient = useQueryClient();
  const retryBaseMs = useLockedRetryBase();
  return useMutation({
    mutationFn: ({ endpointId, action, signal }: EndpointActionVariables) => {
      signal?.throwIfAborted();
      return runEndpointAction(projectId, endpointId, action, { signal, transport: transportOf(queryClient) });
    },
    ...retryWhileLocked(retryBaseMs),
    onSuccess: (data, variables) => {
      onStarted?.(data, variables);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: endpointQueries.list(projectId).queryKey }),
        invalidateLatestOperations(queryClient, projectId),
      ]);
    },
  });
}
