// The platform's three ways of paging a list: projects and branches resume after the last item of the
// previous page (its id is the cursor), operations resume strictly before a microsecond timestamp.
import { badRequest } from '../http-errors';
import { parseCursorTime, type WireOperation, type WireOperationsPage } from '../wire';
import { lowerBound, operationCursor, type OperationRecord } from './operation-lifecycle';
import type { ListOperationsQuery } from './types';

/** `limit` within 1..max, or `fallback` when the request has none. */
export function checkLimit(limit: number | undefined, max: number, fallback: number): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw badRequest(`limit must be an integer between 1 and ${max}`);
  return limit;
}

/**
 * The page of `sorted` that follows `anchor` (the previous page's last item) in the list's own order,
 * so an item added or removed since does not shift the pages after it.
 */
export function pageAfter<T>(sorted: readonly T[], anchor: T | undefined, compare: (a: T, b: T) => number, limit: number): T[] {
  let start = 0;
  if (anchor !== undefined) {
    start = sorted.findIndex((item) => compare(item, anchor) > 0);
    if (start === -1) start = sorted.length;
  }
  return sorted.slice(start, start + limit);
}

/** Newest first, strictly older than the cursor; the cursor is the last operation's `created_at` in microseconds. */
export function operationsPage(ops: readonly OperationRecord[], query: ListOperationsQuery, view: (op: OperationRecord) => WireOperation): WireOperationsPage {
  const limit = checkLimit(query.limit, 1000, 10);
  let end = ops.length;
  if (query.cursor !== undefined) {
    const cursorUs = parseCursorTime(query.cursor);
    if (cursorUs === null) {
      throw badRequest('cursor must be a timestamp returned in pagination.cursor, like 2026-11-22T11:59:58.123456Z');
    }
    end = lowerBound(ops, cursorUs);
  }
  const page: WireOperation[] = [];
  let last: OperationRecord | undefined;
  for (let i = end - 1; i >= 0 && page.length < limit; i--) {
    const op = ops[i];
    if (!op) continue;
    page.push(view(op));
    last = op;
  }
  // An empty page echoes the request's cursor; only a project without any operation has none.
  const cursor = last ? operationCursor(last) : query.cursor;
  return cursor === undefined ? { operations: page } : { operations: page, pagination: { cursor } };
}
