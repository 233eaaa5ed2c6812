import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import type { ActivityFeed } from './activity-feed-schema';
import type { QueryMeta } from './query-meta';
import type { Operation, OperationsPage } from './schemas';

// The live stream's wire and what it does to the query cache (docs/live.md, "The page"): `event: operation`
// carries an operation in the API's own shape (the same schema as a response); its detail is set in place,
// its copies in a project's newest page, loaded history and the activity feed are replaced, and a project's
// lists are read again when the operation is new to them. `reset` reads every active query again. What the
// page has open is told to the server (POST /events/watch) so that it follows it, once for everyone.
// This module loads after the first screen (app/live-wiring.ts): what it reads of the first screen's code (the query
// meta, the in-flight rule, the query keys) is handed in as LiveRules, so loading it splits no shared chunk.

/** The first screen's rules these functions use (api/query-meta.ts, model/operation-status.ts, api/operations.ts). */
export interface LiveRules {
  readMeta: (meta: unknown) => QueryMeta | null;
  isInFlight: (op: Operation, now: number) => boolean;
  detailKey: (projectId: string, operationId: string) => readonly unknown[];
  latestKey: (projectId: string) => readonly unknown[];
}

export const EVENTS_URL = '/events';
export const LIVE_EVENTS = ['operation', 'reset'] as const;
/** The page says what it watches this often while the stream is up (the server keeps it 45 s). */
export const WATCH_REPEAT_MS = 20_000;
/** The most targets one watch names (the server's limit). */
const MAX_WATCHES = 50;

export interface WatchTarget {
  project_id: string;
  operation_id?: string;
}

const replaceIn = (operations: readonly Operation[], op: Operation): { list: Operation[]; found: boolean } => {
  let found = false;
  const list = operations.map((o) => {
    if (o.id !== op.id) return o;
    found = true;
    return op;
  });
  return { list, found };
};

/** One `event: operation` (its data parsed by live-watch.ts's operationOfEvent) applied to the cache; a list of its project that does not hold it yet reads its newest page again. */
export function applyOperationEvent(queryClient: QueryClient, op: Operation, { readMeta, detailKey, latestKey }: LiveRules): void {
  const cache = queryClient.getQueryCache();
  const detail = detailKey(op.project_id, op.id);
  if (cache.find({ queryKey: detail, exact: true })) queryClient.setQueryData(detail, op);
  let missing = false;
  for (const query of cache.getAll()) {
    const meta = readMeta(query.meta);
    if (!meta || meta.data === 'operation') continue;
    if (meta.data === 'activity-feed') {
      const feed = query.state.data as ActivityFeed | undefined;
      const check = feed?.checks[op.project_id];
      if (!feed || !check) continue;
      const { list, found } = replaceIn(check.operations, op);
      if (found)
        queryClient.setQueryData<ActivityFeed>(query.queryKey, { ...feed, checks: { ...feed.checks, [op.project_id]: { ...check, operations: list } } });
      continue;
    }
    if (meta.projectId !== op.project_id) continue;
    if (meta.data === 'newest-page') {
      const page = query.state.data as OperationsPage | undefined;
      if (!page) continue;
      const { list, found } = replaceIn(page.operations, op);
      if (found) queryClient.setQueryData<OperationsPage>(query.queryKey, { ...page, operations: list });
      else missing = true;
    } else {
      const history = query.state.data as InfiniteData<{ operations: Operation[] }> | undefined;
      if (!history) continue;
      const replaced = history.pages.map((page) => replaceIn(page.operations, op));
      const pages = history.pages.map((page, i) => (replaced[i]?.found ? { ...page, operations: replaced[i].list } : page));
      if (replaced.some((r) => r.found)) queryClient.setQueryData(query.queryKey, { ...history, pages });
      else missing = true;
    }
  }
  // New to the project's lists (just started): its newest page is read again, and spliced into the history.
  if (missing) void queryClient.invalidateQueries({ queryKey: latestKey(op.project_id) });
}

/** `reset`: too much was missed; every query on screen reads again. */
export function applyReset(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ type: 'active' });
}

/** What the page has open, from the queries on screen: operations (the detail, the watch tray), projects' lists, the activity feed's projects in flight. */
export function watchTargets(queryClient: QueryClient, { readMeta, isInFlight }: LiveRules, now = Date.now()): WatchTarget[] {
  const operations = new Map<string, WatchTarget>();
  const projects = new Map<string, WatchTarget>();
  for (const query of queryClient.getQueryCache().getAll()) {
    if (query.getObserversCount() === 0) continue;
    const meta = readMeta(query.meta);
    if (!meta) continue;
    if (meta.data === 'operation') {
      const op = query.state.data as Operation | undefined;
      if (!op || isInFlight(op, now))
        operations.set(`${meta.projectId}\u0000${meta.operationId}`, { project_id: meta.projectId, operation_id: meta.operationId });
    } else if (meta.data === 'activity-feed') {
      const feed = query.state.data as ActivityFeed | undefined;
      for (const [projectId, check] of Object.entries(feed?.checks ?? {})) {
        if (check.operations.some((op) => isInFlight(op, now))) projects.set(projectId, { project_id: projectId });
      }
    } else {
      projects.set(meta.projectId, { project_id: meta.projectId });
    }
  }
  return [...operations.values(), ...projects.values()].slice(0, MAX_WATCHES);
}

/**
 * Whether the page has something to follow now (docs/live.md, "One stream per browser"): an operation in flight
 * (or not read yet), a project's list with work in flight, Activity's projects with work in flight, the tray's
 * entries in flight (their detail and their project's newest page). The stream is open only while some tab has.
 */
export function hasLiveWork(queryClient: QueryClient, { readMeta, isInFlight }: LiveRules, now = Date.now()): boolean {
  const inFlight = (operations: readonly Operation[] | undefined) => (operations ?? []).some((op) => isInFlight(op, now));
  return queryClient
    .getQueryCache()
    .getAll()
    .some((query) => {
      if (query.getObserversCount() === 0) return false;
      const meta = readMeta(query.meta);
      if (!meta) return false;
      if (meta.data === 'operation') {
        const op = query.state.data as Operation | undefined;
        return !op || isInFlight(op, now);
      }
      if (meta.data === 'activity-feed') {
        const feed = query.state.data as ActivityFeed | undefined;
        return Object.values(feed?.checks ?? {}).some((check) => inFlight(check.operations));
      }
      if (meta.data === 'newest-page') return inFlight((query.state.data as OperationsPage | undefined)?.operations);
      return inFlight((query.state.data as InfiniteData<{ operations: Operation[] }> | undefined)?.pages[0]?.operations);
    });
}
