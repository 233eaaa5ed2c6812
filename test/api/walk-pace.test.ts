import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWalkPace, MINUTE_BUDGET, SECOND_BUDGET, WALK_GAP_MS, walkWait } from '../../src/api/walk-pace';

const NOW = 1_000_000;

describe('the walk pace', () => {
  it('goes at once when nothing else is going on', () => {
    expect(walkWait({ now: NOW, lastSentAt: -Infinity, gapMs: WALK_GAP_MS, sent: [] })).toBe(0);
  });

  it('keeps its own requests at least the gap apart', () => {
    expect(walkWait({ now: NOW, lastSentAt: NOW - 30, gapMs: WALK_GAP_MS, sent: [NOW - 30] })).toBe(WALK_GAP_MS - 30);
  });

  it('waits while the console sent its budget for the second, until the oldest of them is a second old', () => {
    const sent = Array.from({ length: SECOND_BUDGET }, (_, i) => NOW - 900 + i * 10);
    expect(walkWait({ now: NOW, lastSentAt: -Infinity, gapMs: WALK_GAP_MS, sent })).toBe(100);
    expect(walkWait({ now: NOW, lastSentAt: -Infinity, gapMs: WALK_GAP_MS, sent: sent.slice(1) })).toBe(0);
  });

  it('waits while the console sent its budget for the minute', () => {
    const sent = Array.from({ length: MINUTE_BUDGET }, (_, i) => NOW - 59_000 + i * 100);
    expect(walkWait({ now: NOW, lastSentAt: -Infinity, gapMs: WALK_GAP_MS, sent })).toBe(1_000);
  });

  afterEach(() => vi.useRealTimers());

  it('counts the gap from when its request went out, not from when its turn came', async () => {
    vi.useFakeTimers({ now: NOW });
    const pace = createWalkPace(WALK_GAP_MS);
    const { signal } = new AbortController();
    await pace.turn(signal);
    // The request leaves 30 ms after its turn (the page was busy meanwhile).
    vi.setSystemTime(NOW + 30);
    pace.sending();
    let ready = false;
    const next = pace.turn(signal).then(() => (ready = true));
    await vi.advanceTimersByTimeAsync(WALK_GAP_MS - 1);
    expect(ready).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await next;
    expect(ready).toBe(true);
  });
});
