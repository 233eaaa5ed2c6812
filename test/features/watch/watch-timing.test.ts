import { describe, expect, it } from 'vitest';
import { OperationSchema } from '../../../src/api/schemas';
import { watchTiming } from '../../../src/features/watch/watch-timing';

const created = Date.parse('2026-11-22T12:00:00Z');

function operation(status: string, totalMs = 0) {
  return OperationSchema.parse({
    id: 'op-1',
    project_id: 'p-1',
    action: 'apply_config',
    status,
    failures_count: 0,
    created_at: new Date(created).toISOString(),
    updated_at: new Date(created + totalMs).toISOString(),
    total_duration_ms: totalMs,
  });
}

describe('the tray’s line of time', () => {
  it('counts "so far" up to the last read that found the operation in flight, never past it', () => {
    // Read running at 3 s; 4.7 s have passed since it was created, and the next read is not back yet.
    expect(watchTiming(operation('running'), created + 4_700, created + 3_000)).toBe('3.0 s so far');
    // That read says it ended at 3.2 s: the count never went past it.
    expect(watchTiming(operation('finished', 3_200), created + 5_000, created + 3_000)).toBe('took 3.2 s');
  });

  it('counts from the end of the second created_at names, as the API writes it without a fraction', () => {
    // Created at 12:00:00.900 (written "12:00:00Z"), read running at 12:00:04.100 after 3.2 s, ended at 3.3 s: "so far"
    // never passes the duration that read is then followed by.
    const running = { ...operation('running'), created_at: '2026-11-22T12:00:00Z' };
    expect(watchTiming(running, created + 4_100, created + 4_100)).toBe('3.1 s so far');
    expect(watchTiming(running, created + 500, created + 500)).toBe('0 ms so far');
  });

  it('counts with the clock when it was just read', () => {
    expect(watchTiming(operation('running'), created + 2_000, created + 2_000)).toBe('2.0 s so far');
  });
});
