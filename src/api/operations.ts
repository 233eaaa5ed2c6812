import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { OperationResponseSchema, OperationsPageSchema, type Operation, type OperationsPage } from './schemas';
import { request } from './request';

export const OPERATIONS_PAGE_SIZE = 100;

export function fetchOperationsPage(
  projectId: string,
  { cursor, limit, signal }: { cursor?: string | undefined; limit: number; signal?: AbortSignal },
): Promise<OperationsPage> {
  // Always send limit: the end of the list is a page shorter than it (the cursor never runs out).
  return request(`/projects/${encodeURIComponent(projectId)}/operations`, OperationsPageSchema, {
    query: { limit, cursor },
    signal,
  });
}

export async function fetchOperation(projectId: string, operationId: string, signal?: AbortSignal): Promise<Operation> {
  const body = await request(
    `/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`,
    OperationResponseSchema,
    { signal },
  );
  return body.operation;
}

/** The server's cursor for the page after `page`, or undefined when `page` was the last one. */
export function nextOperationsCursor(page: OperationsPage, limit: number): string | undefined {
  if (page.operations.length < limit) return undefined;
  return page.pagination?.cursor;
}

export const operationQueries = {
  all: () => ['operations'] as const,
  lists: () => [...operationQueries.all(), 'list'] as const,
  /** Every page loaded so far, oldest pages fetched by cursor; never refetched as a whole. */
  history: (projectId: string, limit = OPERATIONS_PAGE_SIZE) =>
    infiniteQueryOptions({
      queryKey: [...operationQueries.lists(), { projectId, view: 'history', limit }] as const,
      queryFn: ({ pageParam, signal }) => fetchOperationsPage(projectId, { cursor: pageParam, limit, signal }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (lastPage) => nextOperationsCursor(lastPage, limit),
      staleTime: Infinity,
      refetchOnWindowFocus: false,
    }),
  /** The newest page alone: what a live refresh polls, one request however many pages are loaded. */
  latest: (projectId: string, limit = OPERATIONS_PAGE_SIZE) =>
    queryOptions({
      queryKey: [...operationQueries.lists(), { projectId, view: 'latest', limit }] as const,
      queryFn: ({ signal }) => fetchOperationsPage(projectId, { limit, signal }),
    }),
  details: () => [...operationQueries.all(), 'detail'] as const,
  detail: (projectId: string, operationId: string) =>
    queryOptions({
      queryKey: [...operationQueries.details(), projectId, operationId] as const,
      queryFn: ({ signal }) => fetchOperation(projectId, operationId, signal),
    }),
};

/**
 * One newest-first list from overlapping pages: each operation once, at its first position, with
 * the most recently updated copy of its data (a polled page may be newer than a loaded one).
 */
export function mergeOperationPages(pages: readonly OperationsPage[]): Operation[] {
  const byId = new Map<string, Operation>();
  for (const page of pages) {
    for (const op of page.operations) {
      const seen = byId.get(op.id);
      if (!seen || op.updated_at > seen.updated_at) byId.set(op.id, op);
    }
  }
  return [...byId.values()];
}
