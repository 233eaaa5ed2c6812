import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { hasLiveWork, type LiveRules } from '../../src/api/live-events';
import { operationQueries } from '../../src/api/operations';
import { readMeta } from '../../src/api/query-meta';
import type { Operation } from '../../src/api/schemas';
import { isInFlight } from '../../src/model/operation-status';

// What keeps the live stream open (docs/live.md, "One stream per browser"): something on screen that can still
// change. A page with nothing in flight has nothing to follow, so it holds no connection.

const rules: LiveRules = {
  readMeta,
  isInFlight,
  detailKey: (projectId, operationId) => operationQueries.detail(projectId, operationId).queryKey,
  latestKey: (projectId) => operationQueries.latest(projectId).queryKey,
};

const op = (id: string, status: string): Operation => ({
  id,
  project_id: 'p1',
  action: 'create_branch',
  status,
  failures_count: 0,
  created_at: '2026-12-03T07:00:00Z',
  updated_at: '2026-12-03T07:00:00Z',
  total_duration_ms: 0,
});

const unsubscribes: (() => void)[] = [];
afterEach(() => {
  for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
});

/** A query on screen: an observer holds it (a query no screen holds any more is not followed). */
function onScreen(client: QueryClient, { queryKey, meta }: { queryKey: readonly unknown[]; meta?: Record<string, unknown> | undefined }): () => void {
  const unsubscribe = new QueryObserver(client, { queryKey, meta, enabled: false }).subscribe(() => undefined);
  unsubscribes.push(unsubscribe);
  return unsubscribe;
}

describe('whether the page has something to follow', () => {
  it('follows an operation in flight, and lets go of it once it has ended or left the screen', () => {
    const client = new QueryClient();
    expect(hasLiveWork(client, rules)).toBe(false);
    const detail = operationQueries.detail('p1', 'op1');
    const leave = onScreen(client, detail);
    // Not read yet: it may be in flight.
    expect(hasLiveWork(client, rules)).toBe(true);
    client.setQueryData(detail.queryKey, op('op1', 'running'));
    expect(hasLiveWork(client, rules)).toBe(true);
    client.setQueryData(detail.queryKey, op('op1', 'finished'));
    expect(hasLiveWork(client, rules)).toBe(false);
    client.setQueryData(detail.queryKey, op('op1', 'running'));
    leave();
    expect(hasLiveWork(client, rules)).toBe(false);
  });

  it('follows a project’s newest operations only while one of them is in flight', () => {
    const client = new QueryClient();
    const latest = operationQueries.latest('p1');
    onScreen(client, latest);
    client.setQueryData(latest.queryKey, { operations: [op('a', 'finished'), op('b', 'failed')] });
    expect(hasLiveWork(client, rules)).toBe(false);
    client.setQueryData(latest.queryKey, { operations: [op('c', 'scheduling'), op('a', 'finished')] });
    expect(hasLiveWork(client, rules)).toBe(true);
  });
});
