import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/api/schemas';
import { createWatchStore, WATCH_STORAGE_PREFIX, type SettledEvent } from '../../../src/features/watch/watch-store';
import { blocksChanges } from '../../../src/model/operation-status';

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

  it('never lets a copy with the same updated_at undo a final status, but takes it for an unfinished one', () => {
    const store = createWatchStore();
    const events: SettledEvent[] = [];
    store.onSettled((e) => events.push(...e));
    store.watch({ operations: [op('a', 'running', '2026-11-22T12:00:01Z'), op('b', 'running', '2026-11-22T12:00:01Z')] });
    store.update([op('a', 'finished', '2026-11-22T12:00:05Z', { total_duration_ms: 4_000 })]);
    // A faulty answer: the same moment, a status no client knows (which would count as in flight).
    store.update([op('a', 'quarantined', '2026-11-22T12:00:05Z'), op('b', 'quarantined', '2026-11-22T12:00:01Z')]);
    store.update([op('a', 'running', '2026-11-22T12:00:03Z')]);

    const statuses = store.getState().groups[0]?.entries.map((e) => e.operation.status);
    expect(statuses).toEqual(['finished', 'quarantined']);
    expect(events.map((e) => [e.kind, e.entry.operation.id])).toEqual([['ended', 'a']]);
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
    const key = WATCH_STORAGE_PREFIX + namespace;
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
  const now = Date.parse('2026-11-22T12:00:00Z');
  it('counts every operation in flight except the availability check', () => {
    expect(blocksChanges({ status: 'running', action: 'apply_config' }, now)).toBe(true);
    expect(blocksChanges({ status: 'failed', action: 'suspend_compute', updated_at: '2026-11-22T11:55:00Z' }, now)).toBe(true);
    expect(blocksChanges({ status: 'running', action: 'check_availability' }, now)).toBe(false);
    expect(blocksChanges({ status: 'finished', action: 'apply_config' }, now)).toBe(false);
  });

  it('does not count a failure the platform is done with (no retry ahead, no change for 15 minutes)', () => {
    const old = { status: 'failed', action: 'suspend_compute', updated_at: '2026-08-01T09:00:00Z', retry_at: '2026-08-01T09:01:00Z' };
    expect(blocksChanges(old, now)).toBe(false);
    expect(blocksChanges({ ...old, retry_at: '2026-11-22T12:05:00Z' }, now)).toBe(true);
  });
});
