import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/api/schemas';
import { createWatchStore, WATCH_STORAGE_PREFIX, type SettledEvent } from '../../../src/features/watch/watch-store';
import { blocksChanges } from '../../../src/lib/operation-status';

function op(id: string, status: string, updatedAt: string, extra: Partial<Operation> = {}): Operation {
  return {
    id,
    project_id: 'p1',
    action: 'create_branch',
    status,
    failures_count: 0,
    created_at: '2026-11-22T12:00:00Z',
    updated_at: updatedAt,
    total_duration_ms: 0,
    ...extra,
  };
}

describe('watch store', () => {
  it('keeps the newest copy of each operation and tells once when one ends or fails', () => {
    const store = createWatchStore();
    const events: SettledEvent[] = [];
    store.onSettled((e) => events.push(...e));
    store.watch({ title: 'Create branch dev', operations: [op('a', 'running', '2026-11-22T12:00:01Z'), op('b', 'scheduling', '2026-11-22T12:00:01Z')] });

    store.update([op('a', 'finished', '2026-11-22T12:00:05Z', { total_duration_ms: 4_000 })]);
    // A page loaded earlier must not turn it back.
    store.update([op('a', 'running', '2026-11-22T12:00:02Z')]);
    store.update([op('a', 'finished', '2026-11-22T12:00:05Z', { total_duration_ms: 4_000 }), op('b', 'failed', '2026-11-22T12:00:06Z')]);

    expect(events.map((e) => [e.kind, e.entry.operation.id, e.group.title])).toEqual([
      ['ended', 'a', 'Create branch dev'],
      ['failed', 'b', 'Create branch dev'],
    ]);
    expect(store.getState().groups[0]?.entries.map((e) => e.operation.status)).toEqual(['finished', 'failed']);
  });

  it('clears finished operations but keeps failures until dismissed, dropping empty groups', () => {
    const store = createWatchStore();
    store.watch({ title: 'one', operations: [op('ok', 'finished', 't1')] });
    store.watch({ title: 'two', operations: [op('err', 'error', 't1'), op('run', 'running', 't1')] });
    store.clearFinished();
    expect(store.getState().groups.map((g) => [g.title, g.entries.map((e) => e.operation.id)])).toEqual([['two', ['err', 'run']]]);
    store.unwatch('err');
    store.unwatch('run');
    expect(store.getState().groups).toEqual([]);
  });

  it('watches an operation once, however often it is asked to', () => {
    const store = createWatchStore();
    store.watch({ operations: [op('a', 'running', 't1')] });
    store.watch({ operations: [op('a', 'running', 't1')] });
    expect(store.getState().groups).toHaveLength(1);
    expect(store.isWatched('a')).toBe(true);
  });

  it("opens a key's stored list, keeping what was watched before, and forgets it on sign-out", () => {
    // A session fingerprint, as the server puts it in the page's data block.
    const namespace = 'lgQVJQPe_iD3ijy5fPR7jU4xpiaU7l0H';

    const earlier = createWatchStore();
    earlier.open(namespace);
    earlier.watch({ operations: [op('stored', 'running', 't1')] });
    const key = WATCH_STORAGE_PREFIX + (namespace);
    expect(localStorage.getItem(key)).toContain('stored');

    const store = createWatchStore();
    store.watch({ operations: [op('early', 'running', 't1')] });
    store.open(namespace);
    expect(store.getState().groups.flatMap((g) => g.entries.map((e) => e.operation.id))).toEqual(['early', 'stored']);

    store.signOut();
    expect(store.getState().groups).toEqual([]);
    expect(localStorage.getItem(key)).toBeNull();
  });

  it('ignores a stored list it cannot read', () => {
    localStorage.setItem(`${WATCH_STORAGE_PREFIX}bad`, '{"version":1,"groups":[{"id":3}]}');
    const store = createWatchStore();
    store.open('bad');
    expect(store.getState().groups).toEqual([]);
  });
});

describe('which operations hold a project', () => {
  it('counts every unfinished operation except the availability check', () => {
    expect(blocksChanges('running', 'apply_config')).toBe(true);
    expect(blocksChanges('failed', 'suspend_compute')).toBe(true);
    expect(blocksChanges('running', 'check_availability')).toBe(false);
    expect(blocksChanges('finished', 'apply_config')).toBe(false);
  });
});
