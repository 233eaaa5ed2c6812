import { infiniteQueryOptions, queryOptions, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { newerCopy } from '../model/operation-status';
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
  const body = await request(`/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`, OperationResponseSchema, call);
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

// Past the API's end, a history goes on with what the archive kept (docs/archive.md, "The record whole"): the
// operations the API no longer lists, after the one it listed last, in the archive's order (the API's, within a
// second too). Such a page's param says so; any other is the API's own cursor.
const KEPT_PARAM = 'kept:';
const KeptWhereSchema = z.object({ after: z.string(), cursor: z.optional(z.string()) });
type KeptWhere = z.infer<typeof KeptWhereSchema>;

const keptParam = (where: KeptWhere) => `${KEPT_PARAM}${JSON.stringify(where)}`;

function keptWhere(param: string | undefined): KeptWhere | undefined {
  if (!param?.startsWith(KEPT_PARAM)) return undefined;
  try {
    return KeptWhereSchema.safeParse(JSON.parse(param.slice(KEPT_PARAM.length))).data;
  } catch {
    return undefined;
  }
}

/** Whether a history page param is the archive's (the record past the API's end) rather than the API's cursor. */
export const isKeptParam = (param: string | undefined): boolean => keptWhere(param) !== undefined;

/** A page of what the archive kept past `where.after`; each operation on it is marked kept (its `keptSince`). */
async function fetchKeptPage(projectId: string, where: KeptWhere, limit: number, call: Call): Promise<HistoryPage> {
  // The archive's client loads when a history first reaches the API's end, not in every page's first JavaScript.
  const { archivedPage, fetchArchivedOperations, nextArchiveCursor } = await import('./archive');
  const page = archivedPage(await fetchArchivedOperations(projectId, { filters: { after: where.after }, cursor: where.cursor, limit, ...call }));
  // The archive does not cover the project (`archived: false`): the record ends where the API's list does.
  if (!page) return { operations: [], next: undefined };
  const cursor = nextArchiveCursor(page, limit);
  return { operations: page.operations, next: cursor === undefined ? undefined : keptParam({ after: where.after, cursor }) };
}

/**
 * One page of a project's history at `param`: the API's page, and where the API's list ends, the first page of
 * what the archive kept past it in the same page (none when the archive does not cover the project). `oldestId`:
 * the history's oldest operation so far, where the API's last page is empty. When the archive fails, the
 * page's `next` asks it again ("Load more"), so the failure is shown and the API's page is kept.
 */
export async function fetchHistoryPage(
  projectId: string,
  { param, limit, oldestId, ...call }: { param: string | undefined; limit: number; oldestId?: string | undefined } & Call,
): Promise<HistoryPage> {
  const kept = keptWhere(param);
  if (kept) return fetchKeptPage(projectId, kept, limit, call);
  const page = await fetchOperationsPage(projectId, { cursor: param, limit, ...call });
  const next = nextOperationsCursor(page, limit);
  const lastId = page.operations.at(-1)?.id ?? (param === undefined ? undefined : oldestId);
  if (next !== undefined || lastId === undefined) return { operations: page.operations, next };
  const where = { after: lastId };
  try {
    const keptPage = await fetchKeptPage(projectId, where, limit, call);
    return { operations: [...page.operations, ...keptPage.operations], next: keptPage.next };
  } catch (error) {
    if (call.signal?.aborted) throw error;
    return { operations: page.operations, next: keptParam(where) };
  }
}

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
      queryFn: (context): Promise<HistoryPage> =>
        fetchHistoryPage(projectId, {
          param: context.pageParam,
          limit,
          // The API's last page can be empty: the record goes on after the oldest operation loaded before it.
          oldestId: historyOperations(context.client.getQueryData<History>(context.queryKey)).at(-1)?.id,
          ...callOf(context),
        }),
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
