import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { isApiError } from './api-error';
import {
  ARCHIVE_ACTIVITY_PATH,
  ARCHIVE_PROJECTS_PATH,
  ARCHIVE_SOURCES_PATH,
  ArchiveActivitySchema,
  ArchivedProjectsSchema,
  ArchiveOperationsAnswerSchema,
  ArchiveSourceResponseSchema,
  ArchiveSourcesSchema,
  archiveOperationsPath,
  archiveSourcePath,
  type ArchiveActivity,
  type ArchivedOperation,
  type ArchivedOperationsPage,
  type ArchivedProjects,
  type ArchiveOperationsAnswer,
  type ArchiveSource,
  type ArchiveSources,
} from './archive-schemas';
import { operationQueries } from './operations';
import { callOf, isPageClient } from './query-transport';
import { CONSOLE_BASE, request, type Call } from './request';
import { historyRefreshDelay, maySendAgain, nextRequestDelay } from './retry-policy';

// The console's own record of operations (docs/archive.md), as the page reads it: the kept sources, a
// project's history answered by the store, and Activity for the projects the store covers. Every path
// is the console server's own (archive-schemas.ts); errors come through request() like the API's.

/** One archive page holds the contract's most: a filter over a 20,000-operation project is a few requests. */
export const ARCHIVE_PAGE_SIZE = 1_000;

/** How many times an export's read of the archive is tried again after a failure the retry policy allows. */
const EXPORT_RETRIES = 3;

/** A filter's parameters as the history's address writes them (`status=failed,error`, `q=…`). */
export type ArchiveFilterParams = Readonly<Record<string, string>>;

const base = CONSOLE_BASE;

export function fetchArchiveSources(call: Call = {}): Promise<ArchiveSources> {
  return request(ARCHIVE_SOURCES_PATH, ArchiveSourcesSchema, { base, ...call });
}

/**
 * The first key kept on a server starts its store (the embedded Postgres creates its database: seconds on
 * a quiet machine, tens of them on a busy one), so keeping is given longer than a read.
 */
export const KEEP_TIMEOUT_MS = 120_000;

/** Keeps the session's own key as a source (the server seals it; the page never holds it). */
export async function keepHistory(call: Call = {}): Promise<ArchiveSource> {
  const body = await request(ARCHIVE_SOURCES_PATH, ArchiveSourceResponseSchema, { method: 'POST', base, timeoutMs: KEEP_TIMEOUT_MS, ...call });
  return body.source;
}

/** Removes a source: the server deletes its stored key. */
export async function removeArchiveSource(sourceId: string, call: Call = {}): Promise<void> {
  await request(archiveSourcePath(sourceId), z.unknown(), { method: 'DELETE', base, ...call });
}

export function fetchArchivedOperations(
  projectId: string,
  { filters, cursor, limit, ...call }: { filters: ArchiveFilterParams; cursor?: string | undefined; limit: number } & Call,
): Promise<ArchiveOperationsAnswer> {
  return request(archiveOperationsPath(projectId), ArchiveOperationsAnswerSchema, { base, query: { ...filters, limit, cursor }, ...call });
}

/** The archive's page, or undefined when it does not cover the project (`archived: false`). */
export function archivedPage(answer: ArchiveOperationsAnswer | undefined): ArchivedOperationsPage | undefined {
  return answer?.archived ? answer : undefined;
}

/**
 * Every match of a filter from the archive, page by page (one request each, to the console's own server:
 * no API budget), for "Export all matches". Stops with the signal.
 */
export async function fetchAllArchivedMatches(projectId: string, filters: ArchiveFilterParams, call: Call = {}): Promise<ArchivedOperationsPage[]> {
  const pages: ArchivedOperationsPage[] = [];
  let cursor: string | undefined;
  do {
    const page = archivedPage(await fetchArchivedOperations(projectId, { filters, cursor, limit: ARCHIVE_PAGE_SIZE, ...call }));
    // The archive stopped covering the project (its key was removed) between the list and the export.
    if (!page) throw new Error('The history archive no longer covers this project.');
    pages.push(page);
    cursor = nextArchiveCursor(page, ARCHIVE_PAGE_SIZE);
  } while (cursor !== undefined);
  return pages;
}

export function fetchArchiveActivity(call: Call = {}): Promise<ArchiveActivity> {
  return request(ARCHIVE_ACTIVITY_PATH, ArchiveActivitySchema, { base, ...call });
}

export function fetchArchivedProjects(call: Call = {}): Promise<ArchivedProjects> {
  return request(ARCHIVE_PROJECTS_PATH, ArchivedProjectsSchema, { base, ...call });
}

/** The archive does not cover this project (its first page says `archived: false`): the page reads the API as before. */
export function isNotArchived(history: ArchivedHistory | undefined): boolean {
  return history?.pages[0]?.archived === false;
}

/** The cursor of the archive page after `page`, or undefined at the end (the API's rule: a short page ends it). */
export function nextArchiveCursor(page: ArchiveOperationsAnswer, limit: number): string | undefined {
  if (!page.archived) return undefined;
  return page.operations.length < limit ? undefined : page.pagination?.cursor;
}

export type ArchivedHistory = InfiniteData<ArchiveOperationsAnswer>;

/** Each matching operation of the loaded archive pages once, newest first. */
export function archivedOperations(history: ArchivedHistory | undefined): ArchivedOperation[] {
  if (!history) return [];
  const seen = new Set<string>();
  const operations: ArchivedOperation[] = [];
  for (const page of history.pages) {
    if (!page.archived) continue;
    for (const op of page.operations) {
      if (seen.has(op.id)) continue;
      seen.add(op.id);
      operations.push(op);
    }
  }
  return operations;
}

/** Whether the operation is one the API no longer lists, shown because the archive kept it. */
export const isKeptByArchive = (operation: object): boolean => 'keptSince' in operation && typeof operation.keptSince === 'string';

/** Sources: polled at the chosen interval while one is still reading a whole history; otherwise on focus only. */
export function sourcesPollDelay(sources: ArchiveSources | undefined, intervalMs: number): number | false {
  return sources?.sources.some((s) => s.state === 'backfilling') ? intervalMs : false;
}

/** Whether the session's own key is kept and being followed: then the archive holds every project the key reaches. */
export function ownKeyFollowed(sources: ArchiveSources | undefined): boolean {
  return sources?.sources.some((s) => s.isOwnKey && s.state === 'following') ?? false;
}

export const archiveQueries = {
  all: () => ['archive'] as const,
  sources: () =>
    queryOptions({
      queryKey: [...archiveQueries.all(), 'sources'] as const,
      queryFn: (context) => fetchArchiveSources(callOf(context)),
    }),
  /** A project's history from the store, filtered by the server: one request per page, no walk. */
  operations: (projectId: string, filters: ArchiveFilterParams, limit = ARCHIVE_PAGE_SIZE) =>
    infiniteQueryOptions({
      queryKey: [...archiveQueries.all(), 'operations', projectId, { filters, limit }] as const,
      queryFn: (context) => fetchArchivedOperations(projectId, { filters, cursor: context.pageParam, limit, ...callOf(context) }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (lastPage) => nextArchiveCursor(lastPage, limit),
      refetchOnWindowFocus: false,
    }),
  /** One operation from the store (the API said 404 for it: pruned, kept by the archive); null when the archive has not got it either. */
  operation: (projectId: string, operationId: string) =>
    queryOptions({
      queryKey: [...archiveQueries.all(), 'operation', projectId, operationId] as const,
      queryFn: async (context): Promise<ArchivedOperation | null> => {
        // The text filter finds the id; the exact one is picked from what it finds.
        const page = archivedPage(await fetchArchivedOperations(projectId, { filters: { q: operationId }, limit: ARCHIVE_PAGE_SIZE, ...callOf(context) }));
        return page?.operations.find((op) => op.id === operationId) ?? null;
      },
    }),
  /**
   * Every page of a project's matches, for "Export everything that matches": a query like any other, so
   * the error policy is the same (a 401 ends the session, a busy server is retried with backoff), kept no
   * longer than the export. Tried a few times, not for as long as a screen shows it: a person is waiting
   * for the file, and is told if it cannot be written.
   */
  export: (projectId: string, filters: ArchiveFilterParams) =>
    queryOptions({
      queryKey: [...archiveQueries.all(), 'export', projectId, { filters }] as const,
      queryFn: (context) => fetchAllArchivedMatches(projectId, filters, callOf(context)),
      staleTime: 0,
      gcTime: 0,
      retry: (failureCount, error) => failureCount < EXPORT_RETRIES && maySendAgain(error),
    }),
  activity: () =>
    queryOptions({
      queryKey: [...archiveQueries.all(), 'activity'] as const,
      queryFn: (context) => fetchArchiveActivity(callOf(context)),
    }),
  /**
   * The projects the session's own kept key reaches, with their figures: one request for the projects list, and
   * what an operation's page reads to know whether to ask the archive first. Read again at most every half minute.
   */
  projects: () =>
    queryOptions({
      queryKey: [...archiveQueries.all(), 'projects'] as const,
      queryFn: (context) => fetchArchivedProjects(callOf(context)),
      staleTime: 30_000,
    }),
};

/**
 * An operation's first data, the archive first where it has it: when the archive covers the project for this session,
 * its copy is read before the API's, and an operation the API no longer lists (it would answer 404) is shown from
 * the archive without asking the API. Otherwise, and when the archive cannot answer, the API's copy. A server render
 * reads the API's only: one the API no longer has is then left to the browser (the page goes out as the shell).
 */
export async function loadOperationArchiveFirst(client: QueryClient, projectId: string, operationId: string): Promise<unknown> {
  const covered =
    isPageClient(client) &&
    (await client.query(archiveQueries.projects()).then(
      (projects) => isCovered(projects, projectId),
      () => false,
    ));
  if (covered) {
    const copy = await client.query(archiveQueries.operation(projectId, operationId)).catch(() => null);
    if (copy && isKeptByArchive(copy)) return copy;
  }
  return client.query(operationQueries.detail(projectId, operationId));
}

/** Whether the archive covers the project for this session (its own kept key reaches it). */
export function isCovered(projects: ArchivedProjects | undefined, projectId: string): boolean {
  return projects?.projects.some((p) => p.id === projectId) ?? false;
}

/** The poll of the sources (the retry policy's backoff while it fails). */
export function sourcesRefetchInterval(intervalMs: number) {
  return (query: { state: { data: ArchiveSources | undefined; fetchFailureCount: number; fetchFailureReason: unknown } }) =>
    nextRequestDelay(query.state, sourcesPollDelay(query.state.data, intervalMs));
}

/** The archive's matches, asked again at the history's pace: the chosen interval while a match is in flight, slowly otherwise. */
export function archivedHistoryRefetchInterval(intervalMs: number) {
  return (query: { state: { data: ArchivedHistory | undefined; fetchFailureCount: number; fetchFailureReason: unknown } }) => {
    // A project it does not cover is not asked again: the page reads the API instead.
    if (isNotArchived(query.state.data)) return false;
    const newest = archivedPage(query.state.data?.pages[0])?.operations ?? [];
    return nextRequestDelay(query.state, historyRefreshDelay(newest, intervalMs));
  };
}

/** Activity from the store, at the chosen interval: it costs no API request. */
export function archiveActivityRefetchInterval(intervalMs: number) {
  return (query: { state: { fetchFailureCount: number; fetchFailureReason: unknown } }) =>
    // A console without an archive (404) is not asked again in this view.
    isApiError(query.state.fetchFailureReason) && query.state.fetchFailureReason.status === 404 ? false : nextRequestDelay(query.state, intervalMs);
}

function withSource(client: QueryClient, source: ArchiveSource): void {
  client.setQueryData(archiveQueries.sources().queryKey, (current) => {
    const others = (current?.sources ?? []).filter((s) => s.id !== source.id);
    return { sources: [...others, source] };
  });
}

/** "Keep history": keeps the session's key; the sources list shows it at once and is read again. */
export function useKeepHistory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => keepHistory(),
    onSuccess: (source) => {
      withSource(client, source);
      return client.invalidateQueries({ queryKey: archiveQueries.all() });
    },
  });
}

/** "Remove": deletes the source's stored key; it leaves the list at once, and what the archive covers is read again. */
export function useRemoveArchiveSource() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (sourceId: string) => removeArchiveSource(sourceId),
    onSuccess: (_done, sourceId) => {
      client.setQueryData(archiveQueries.sources().queryKey, (current) => current && { sources: current.sources.filter((s) => s.id !== sourceId) });
      return client.invalidateQueries({ queryKey: archiveQueries.all() });
    },
  });
}
