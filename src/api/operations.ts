import { infiniteQueryOptions, queryOptions, type QueryClient, type QueryKey } from '@tanstack/react-query';
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

/** Refetches a project's newest page (the history and the watch list share it); older loaded pages stay as they are. */
export function invalidateLatestOperations(queryClient: QueryClient, projectId: string): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: [...operationQueries.lists(), { projectId, view: 'latest' }] });
}

function isListKeyPart(part: unknown): part is { projectId: string; view: string; limit: number } {
  return (
    typeof part === 'object' &&
    part !== null &&
    'projectId' in part &&
    typeof part.projectId === 'string' &&
    'view' in part &&
    typeof part.view === 'string' &&
    'limit' in part &&
    typeof part.limit === 'number'
  );
}

/** The operations a cached operations query holds, whichever it is: newest page, loaded history, or one operation. */
export function cachedOperations(queryClient: QueryClient, queryKey: QueryKey): readonly Operation[] {
  const [root, kind, a, b] = queryKey;
  if (root !== 'operations') return [];
  if (kind === 'detail' && typeof a === 'string' && typeof b === 'string') {
    const operation = queryClient.getQueryData(operationQueries.detail(a, b).queryKey);
    return operation ? [operation] : [];
  }
  if (kind !== 'list' || !isListKeyPart(a)) return [];
  if (a.view === 'latest') return queryClient.getQueryData(operationQueries.latest(a.projectId, a.limit).queryKey)?.operations ?? [];
  if (a.view === 'history') {
    return queryClient.getQueryData(operationQueries.history(a.projectId, a.limit).queryKey)?.pages.flatMap((p) => p.operations) ?? [];
  }
  return [];
}
