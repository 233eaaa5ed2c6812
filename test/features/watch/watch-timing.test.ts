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

  it('counts with the clock when it was just read', () => {
    expect(watchTiming(operation('running'), created + 2_000, created + 2_000)).toBe('2.0 s so far');
  });
});
