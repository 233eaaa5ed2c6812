import { focusManager, hashKey, type QueryClient } from '@tanstack/react-query';
import { compareTimes } from '../lib/format';
import { newerCopy } from '../model/operation-status';
import { fetchOperationsPage, historyOperations, nextOperationsCursor, OPERATIONS_MAX_LIMIT, operationQueries, type History } from './operations';
import { readMeta } from './query-meta';
import { callOf } from './query-transport';
import type { Operation, OperationsPage } from './schemas';

// A project's loaded history is the one store of its operations (docs/architecture.md). Each refresh of the
// newest page is spliced into it here, in the cache, not at render; a refresh that does not reach the
// loaded pages (more new operations than a page holds arrived since the last one, say while the tab
// was hidden) pages on by cursor until it does, and then splices all of it: each operation once,
// newest first, newer copies in place of older ones.

/** Catch-up pages ask for the platform's most, so a long gap costs few requests. */
export const CATCH_UP_LIMIT = OPERATIONS_MAX_LIMIT;
/** At least this long between two catch-up requests: 4 a second, far inside the platform's 40/s and 700/min. */
export const CATCH_UP_PACE_MS = 250;
/** Past this many catch-up pages the loaded pages are let go: the history starts over from the newest ones. */
export const CATCH_UP_MAX_PAGES = 10;

/** The newest operations of a project, contiguous and newest first, and where the list goes on after them. */
export interface NewestRun {
  operations: readonly Operation[];
  /** The cursor after the run's last operation; undefined when the run holds the list to its end. */
  next: string | undefined;
}

/** Whether nothing lies between the run and the loaded operations: the run holds the newest loaded one, or goes past it, or ends the list. */
export function reachesLoaded(run: NewestRun, loaded: readonly Operation[]): boolean {
  const newestLoaded = loaded[0];
  const oldestInRun = run.operations.at(-1);
  if (run.next === undefined || !newestLoaded || !oldestInRun) return true;
  return run.operations.some((op) => op.id === newestLoaded.id) || compareTimes(oldestInRun.created_at, newestLoaded.created_at) < 0;
}

/**
 * The history with a run that reaches it spliced in: the run's new operations on top of the first
 * page, its newer copies in place of the loaded ones. Operations older than the oldest loaded one are
 * left to "Load more" (which goes on from the last page's cursor), so none is ever listed twice.
 * Returns `history` itself when nothing changes.
 */
export function spliceNewest(history: History, run: NewestRun): History {
  const loaded = historyOperations(history);
  const oldestLoaded = loaded.at(-1);
  if (!oldestLoaded) return { pages: [{ operations: [...run.operations], next: run.next }], pageParams: [undefined] };
  const loadedIds = new Set(loaded.map((op) => op.id));
  const incoming = new Map<string, Operation>();
  const fresh: Operation[] = [];
  for (const op of run.operations) {
    if (loadedIds.has(op.id)) incoming.set(op.id, op);
    else if (compareTimes(op.created_at, oldestLoaded.created_at) > 0 && !incoming.has(op.id)) {
      incoming.set(op.id, op);
      fresh.push(op);
    }
  }
  let changed = fresh.length > 0;
  const pages = history.pages.map((page, i) => {
    const operations = page.operations.map((op) => {
      const arrived = incoming.get(op.id);
      return arrived ? newerCopy(op, arrived) : op;
    });
    if (i === 0 && fresh.length > 0) return { ...page, operations: [...fresh, ...operations] };
    if (operations.every((op, j) => op === page.operations[j])) return page;
    changed = true;
    return { ...page, operations };
  });
  return changed ? { pages, pageParams: history.pageParams } : history;
}

const runOf = (page: OperationsPage, limit: number): NewestRun => ({ operations: page.operations, next: nextOperationsCursor(page, limit) });

const startedFrom = (run: NewestRun): History => ({ pages: [{ operations: [...run.operations], next: run.next }], pageParams: [undefined] });

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once the tab is visible: a hidden tab sends nothing (its catch-up waits for its return). */
function whenVisible(): Promise<void> {
  if (focusManager.isFocused()) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = focusManager.subscribe((focused) => {
      if (!focused) return;
      stop();
      resolve();
    });
  });
}

/**
 * Splices every result of a project's newest-page query (polled here, or handed over by another
 * tab) into that project's loaded history, catching up by cursor over a gap while the history is
 * on screen (a history nobody shows starts over from the newest page instead, at no cost). Also
 * splices the newest page again after the history itself loads a page, which would otherwise
 * drop a splice made while it was loading. Returns the function that stops it.
 */
export function connectHistoryRefresh(queryClient: QueryClient, { paceMs = CATCH_UP_PACE_MS } = {}): () => void {
  const cache = queryClient.getQueryCache();
  /** Histories catching up, with the newest page that arrived meanwhile (spliced once they are done). */
  const catchingUp = new Map<string, { arrived: OperationsPage | undefined }>();

  function refresh(projectId: string, limit: number, page: OperationsPage): void {
    const { queryKey } = operationQueries.history(projectId, limit);
    const history = queryClient.getQueryData(queryKey);
    if (!history) return;
    const pending = catchingUp.get(hashKey(queryKey));
    if (pending) {
      pending.arrived = page;
      return;
    }
    const run = runOf(page, limit);
    if (reachesLoaded(run, historyOperations(history))) {
      const next = spliceNewest(history, run);
      if (next !== history) queryClient.setQueryData(queryKey, next);
    } else if ((cache.find({ queryKey, exact: true })?.getObserversCount() ?? 0) === 0) {
      queryClient.setQueryData(queryKey, startedFrom(run));
    } else {
      void catchUp(projectId, limit, run);
    }
  }

  async function catchUp(projectId: string, limit: number, start: NewestRun): Promise<void> {
    const { queryKey } = operationQueries.history(projectId, limit);
    const hash = hashKey(queryKey);
    const pending: { arrived: OperationsPage | undefined } = { arrived: undefined };
    catchingUp.set(hash, pending);
    const operations = [...start.operations];
    let next = start.next;
    try {
      for (let pages = 0; ; pages++) {
        const history = queryClient.getQueryData(queryKey);
        if (!history) return;
        const run = { operations, next };
        if (reachesLoaded(run, historyOperations(history))) {
          queryClient.setQueryData(queryKey, spliceNewest(history, run));
          return;
        }
        if (pages === CATCH_UP_MAX_PAGES || next === undefined) {
          queryClient.setQueryData(queryKey, startedFrom(run));
          return;
        }
        await pause(paceMs);
        await whenVisible();
        const cursor = next;
        const page = await queryClient.query({
          queryKey: [...operationQueries.lists(), { projectId, view: 'catch-up', cursor, limit: CATCH_UP_LIMIT }],
          queryFn: (context) => fetchOperationsPage(projectId, { cursor, limit: CATCH_UP_LIMIT, ...callOf(context) }),
          staleTime: 0,
          gcTime: 0,
        });
        operations.push(...page.operations);
        next = nextOperationsCursor(page, CATCH_UP_LIMIT);
      }
    } catch {
      // A catch-up request failed for good: the next refresh finds the same gap and tries again.
    } finally {
      catchingUp.delete(hash);
      if (pending.arrived) refresh(projectId, limit, pending.arrived);
    }
  }

  return cache.subscribe((event) => {
    if (event.type !== 'updated' || event.action.type !== 'success') return;
    const meta = readMeta(event.query.meta);
    if (meta?.data === 'newest-page') {
      const page = queryClient.getQueryData(operationQueries.latest(meta.projectId, meta.limit).queryKey);
      if (page) refresh(meta.projectId, meta.limit, page);
    } else if (meta?.data === 'history' && !event.action.manual) {
      const page = queryClient.getQueryData(operationQueries.latest(meta.projectId, meta.limit).queryKey);
      if (page) refresh(meta.projectId, meta.limit, page);
    }
  });
}
