import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type * as z from 'zod/mini';
import { endpointQueries } from './endpoints';
import { retryWhileLocked, type Abortable, type StartOptions } from './locked-retry';
import { invalidateLatestOperations } from './operations';
import { BranchDeletedSchema, BranchesResponseSchema, BranchOperationsSchema } from './schemas';
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

export interface CreateBranchInput {
  name: string;
  parentId: string;
  /** A read-write compute for the new branch (its start is a second operation). */
  withCompute: boolean;
}

export type CreatedBranch = z.infer<typeof BranchOperationsSchema>;
/** Null when the branch was already gone (204): nothing was started. */
export type DeletedBranch = z.infer<typeof BranchDeletedSchema>;

export function createBranch(projectId: string, input: CreateBranchInput, signal?: AbortSignal): Promise<CreatedBranch> {
  return request(`/projects/${encodeURIComponent(projectId)}/branches`, BranchOperationsSchema, {
    method: 'POST',
    body: {
      branch: { name: input.name, parent_id: input.parentId },
      ...(input.withCompute ? { endpoints: [{ type: 'read_write' }] } : {}),
    },
    signal,
  });
}

export function deleteBranch(projectId: string, branchId: string, signal?: AbortSignal): Promise<DeletedBranch> {
  return request(`/projects/${encodeURIComponent(projectId)}/branches/${encodeURIComponent(branchId)}`, BranchDeletedSchema, {
    method: 'DELETE',
    signal,
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

export function useCreateBranch(projectId: string, { onStarted, retryBaseMs }: StartOptions<CreatedBranch, CreateBranchVariables> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ signal, ...input }: CreateBranchVariables) => {
      signal?.throwIfAborted();
      return createBranch(projectId, input, signal);
    },
    ...retryWhileLocked(retryBaseMs),
    onSuccess: (data, variables) => {
      onStarted?.(data, variables);
      return invalidateBranchesAndComputes(queryClient, projectId);
    },
  });
}

export type DeleteBranchVariables = { branchId: string; branchName: string } & Abortable;

export function useDeleteBranch(projectId: string, { onStarted, retryBaseMs }: StartOptions<DeletedBranch, DeleteBranchVariables> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ branchId, signal }: DeleteBranchVariables) => {
      signal?.throwIfAborted();
      return deleteBranch(projectId, branchId, signal);
    },
    ...retryWhileLocked(retryBaseMs),
    onSuccess: (data, variables) => {
      onStarted?.(data, variables);
      return invalidateBranchesAndComputes(queryClient, projectId);
    },
  });
}
