import { describe, expect, it } from 'vitest';
import { describeUsual, longerThanUsual, longerThreshold, usualDurations, USUAL_MIN_SAMPLES } from '../../src/model/usual-durations';

const NOW = Date.parse('2026-11-22T12:00:00Z');

function op(action: string, status: string, ms: number, createdAgoMs = 3_600_000) {
  return { action, status, total_duration_ms: ms, created_at: new Date(NOW - createdAgoMs).toISOString() };
}

describe('usual durations', () => {
  it('takes p50 and p95 per action over the durations reported for operations that ended', () => {
    const ops = [
      ...Array.from({ length: 20 }, (_, i) => op('apply_config', 'finished', (i + 1) * 100)),
      op('apply_config', 'running', 0),
      op('apply_config', 'failed', 0),
      op('check_availability', 'finished', 2_000),
    ];
    const usual = usualDurations(ops);
    expect(usual.get('apply_config')).toEqual({ action: 'apply_config', p50: 1_000, p95: 1_900, count: 20 });
    expect(usual.get('check_availability')?.count).toBe(1);
  });

  it('marks an operation in progress past twice the p95 and past 30 s, and never one that ended', () => {
    const history = Array.from({ length: USUAL_MIN_SAMPLES }, () => op('start_compute', 'finished', 20_000));
    const usual = usualDurations(history);
    expect(longerThreshold(usual.get('start_compute')!)).toBe(40_000);
    expect(longerThanUsual(op('start_compute', 'running', 0, 39_000), usual, NOW)).toBeNull();
    expect(longerThanUsual(op('start_compute', 'running', 0, 41_000), usual, NOW)).toEqual(usual.get('start_compute'));
    expect(longerThanUsual(op('start_compute', 'finished', 90_000, 91_000), usual, NOW)).toBeNull();
    expect(describeUsual(usual.get('start_compute')!)).toBe('usually 20 s, p95 20 s');
  });

  it('needs at least 30 s, however quick the action usually is, and enough history to judge by', () => {
    const quick = usualDurations(Array.from({ length: 10 }, () => op('check_availability', 'finished', 1_000)));
    expect(longerThanUsual(op('check_availability', 'running', 0, 25_000), quick, NOW)).toBeNull();
    expect(longerThanUsual(op('check_availability', 'running', 0, 31_000), quick, NOW)).not.toBeNull();
    const few = usualDurations(Array.from({ length: USUAL_MIN_SAMPLES - 1 }, () => op('apply_config', 'finished', 1_000)));
    expect(longerThanUsual(op('apply_config', 'running', 0, 600_000), few, NOW)).toBeNull();
  });
});
