import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type * as z from 'zod/mini';
import { endpointQueries } from './endpoints';
import { retryWhileLocked, useLockedRetryBase, type Abortable, type StartOptions } from './locked-retry';
import { invalidateLatestOperations } from './operations';
import { BranchDeletedSchema, BranchesResponseSchema, BranchOperationsSchema } from './schemas';
import { callOf, transportOf } from './query-transport';
import { request, type Call } from './request';

export const branchQueries = {
  all: () => ['branches'] as const,
  list: (projectId: string) =>
    queryOptions({
      queryKey: [...branchQueries.all(), 'list', projectId] as const,
      queryFn: async (context) => (await request(`/projects/${encodeURIComponent(projectId)}/branches`, BranchesResponseSchema, callOf(context))).branches,
      staleTime: 30_000,
    }),
};

export interface CreateBranchInput {
  name: string;
  parentId: string;
  /** A read-write compute for the new branch (its start is a second operation). */
  withCompute: boolean;
}

export type CreatedBranch = z.infer<typeof BranchOperationsSchema>;
/** Null when the branch was already gone (204): nothing was started. */
export type DeletedBranch = z.infer<typeof BranchDeletedSchema>;

export function createBranch(projectId: string, input: CreateBranchInput, call: Call = {}): Promise<CreatedBranch> {
  return request(`/projects/${encodeURIComponent(projectId)}/branches`, BranchOperationsSchema, {
    method: 'POST',
    body: {
      branch: { name: input.name, parent_id: input.parentId },
      ...(input.withCompute ? { endpoints: [{ type: 'read_write' }] } : {}),
    },
    ...call,
  });
}

export function deleteBranch(projectId: string, branchId: string, call: Call = {}): Promise<DeletedBranch> {
  return request(`/projects/${encodeURIComponent(projectId)}/branches/${encodeURIComponent(branchId)}`, BranchDeletedSchema, {
    method: 'DELETE',
    ...call,
  });
}

function invalidateBranchesAndComputes(queryClient: QueryClient, projectId: string): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: branchQueries.list(projectId).queryKey }),
    queryClient.invalidateQueries({ queryKey: endpointQueries.list(projectId).queryKey }),
    invalidateLatestOperations(queryClient, projectId),
  ]);
}

export type CreateBranchVariables = CreateBranchInput & Abortable;

export function useCreateBranch(projectId: string, { onStarted }: StartOptions<CreatedBranch, CreateBranchVariables> = {}) {
  const queryClient = useQueryClient();
  const retryBaseMs = useLockedRetryBase();
  return useMutation({
    mutationFn: ({ signal, ...input }: CreateBranchVariables) => {
      signal?.throwIfAborted();
      return createBranch(projectId, input, { signal, transport: transportOf(queryClient) });
    },
    ...retryWhileLocked(retryBaseMs),
    onSuccess: (data, variables) => {
      onStarted?.(data, variables);
      return invalidateBranchesAndComputes(queryClient, projectId);
    },
  });
}

export type DeleteBranchVariables = { branchId: string; branchName: string } & Abortable;

export function useDeleteBranch(projectId: string, { onStarted }: StartOptions<DeletedBranch, DeleteBranchVariables> = {}) {
  const queryClient = useQueryClient();
  const retryBaseMs = useLockedRetryBase();
  return useMutation({
    mutationFn: ({ branchId, signal }: DeleteBranchVariables) => {
      signal?.throwIfAborted();
      return deleteBranch(projectId, branchId, { signal, transport: transportOf(queryClient) });
    },
    ...retryWhileLocked(retryBaseMs),
    onSuccess: (data, variables) => {
      onStarted?.(data, variables);
      return invalidateBranchesAndComputes(queryClient, projectId);
    },
  });
}
