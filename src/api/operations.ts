import { infiniteQueryOptions, queryOptions, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { newerCopy } from '../lib/operation-status';
import type { ActivityFeed } from './activity-feed-schema';
import type { QueryMeta } from './query-meta';
import { callOf } from './query-transport';
import { OperationResponseSchema, OperationsPageSchema, type Operation, type OperationsPage } from './schemas';
import { request, type Call } from './request';

export const OPERATIONS_PAGE_SIZE = 100;
/** The platform's largest `limit` for the operations list. */
export const OPERATIONS_MAX_LIMIT = 1_000;

export function fetchOperationsPage(
  projectId: string,
  { cursor, limit, ...call }: { cursor?: string | undefined; limit: number } & Call,
): Promise<OperationsPage> {
  // Always send limit: the end of the list is a page shorter than it (the cursor never runs out).
  return request(`/projects/${encodeURIComponent(projectId)}/operations`, OperationsPageSchema, {
    query: { limit, cursor },
    ...call,
  });
}

export async function fetchOperation(projectId: string, operationId: string, call: Call = {}): Promise<Operation> {
  const body = await request(
    `/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`,
    OperationResponseSchema,
    call,
  );
  return body.operation;
}

/** The server's cursor for the page after `page`, or undefined when `page` was the last one. */
export function nextOperationsCursor(page: OperationsPage, limit: number): string | undefined {
  if (page.operations.length < limit) return undefined;
  return page.pagination?.cursor;
}

/**
 * One page of a project's loaded history: its operations, newest first, and the server's cursor
 * where the history goes on after them (undefined: the end). Only the last page's `next` is used
 * (by "Load more"); a refresh grows the first page (api/operation-history.ts).
 */
export interface HistoryPage {
  operations: Operation[];
  next: string | undefined;
}

export type History = InfiniteData<HistoryPage>;

const meta = (declared: QueryMeta) => declared;

export const operationQueries = {
  all: () => ['operations'] as const,
  lists: () => [...operationQueries.all(), 'list'] as const,
  /**
   * A project's operations: the one store the history screen renders. Pages load by cursor on
   * demand; the polled newest page (`latest`) is spliced into it; it is never refetched as a whole.
   */
  history: (projectId: string, limit = OPERATIONS_PAGE_SIZE) =>
    infiniteQueryOptions({
      queryKey: [...operationQueries.lists(), { projectId, view: 'history', limit }] as const,
      queryFn: async (context): Promise<HistoryPage> => {
        const page = await fetchOperationsPage(projectId, { cursor: context.pageParam, limit, ...callOf(context) });
        return { operations: page.operations, next: nextOperationsCursor(page, limit) };
      },
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (lastPage) => lastPage.next,
      staleTime: Infinity,
      refetchOnWindowFocus: false,
      meta: meta({ data: 'history', projectId, limit }),
    }),
  /**
   * The newest page alone: the live refresh's transport, one request however many pages are loaded.
   * The watch list polls it too, other tabs share it, and each result is spliced into the history.
   */
  latest: (projectId: string, limit = OPERATIONS_PAGE_SIZE) =>
    queryOptions({
      queryKey: [...operationQueries.lists(), { projectId, view: 'latest', limit }] as const,
      queryFn: (context) => fetchOperationsPage(projectId, { limit, ...callOf(context) }),
      meta: meta({ data: 'newest-page', projectId, limit }),
    }),
  details: () => [...operationQueries.all(), 'detail'] as const,
  detail: (projectId: string, operationId: string) =>
    queryOptions({
      queryKey: [...operationQueries.details(), projectId, operationId] as const,
      queryFn: (context) => fetchOperation(projectId, operationId, callOf(context)),
      meta: meta({ data: 'operation', projectId, operationId }),
    }),
};

/** Each operation of the loaded history once, newest first. */
export function historyOperations(history: History | undefined): Operation[] {
  if (!history) return [];
  const seen = new Set<string>();
  const operations: Operation[] = [];
  for (const page of history.pages) {
    for (const op of page.operations) {
      if (seen.has(op.id)) continue;
      seen.add(op.id);
      operations.push(op);
    }
  }
  return operations;
}

/** One newest-first list from overlapping lists: each operation once, at its first place, in its newest copy. */
export function mergeCopies(...lists: readonly (readonly Operation[])[]): Operation[] {
  const byId = new Map<string, Operation>();
  for (const list of lists) {
    for (const op of list) {
      const seen = byId.get(op.id);
      byId.set(op.id, seen ? newerCopy(seen, op) : op);
    }
  }
  return [...byId.values()];
}

/** The operations a query holds, by what it declares in `meta`: one operation, a newest page, a loaded history or the activity feed. */
export function operationsIn(queryClient: QueryClient, declared: QueryMeta): readonly Operation[] {
  switch (declared.data) {
    case 'operation': {
      const operation = queryClient.getQueryData(operationQueries.detail(declared.projectId, declared.operationId).queryKey);
      return operation ? [operation] : [];
    }
    case 'newest-page':
      return queryClient.getQueryData(operationQueries.latest(declared.projectId, declared.limit).queryKey)?.operations ?? [];
    case 'history':
      return historyOperations(queryClient.getQueryData(operationQueries.history(declared.projectId, declared.limit).queryKey));
    case 'activity-feed': {
      // The activity view's key (api/activity-feed.ts): each project's newest page, as last read.
      const feed = queryClient.getQueryData<ActivityFeed>(['activity', 'feed']);
      return feed ? Object.values(feed.checks).flatMap((check) => check.operations) : [];
    }
  }
}

/** Refetches a project's newest page (the history and the watch list share it; the history gets it spliced in). */
export function invalidateLatestOperations(queryClient: QueryClient, projectId: string): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: [...operationQueries.lists(), { projectId, view: 'latest' }] });
}
