import { describe, expect, it } from 'vitest';
import { nextListPollDelay, nextPollDelay } from '../../src/api/retry-policy';
import { durationOf, isInFlight, isTerminal, newerCopy, outcomeOf, statusLabel, TERMINAL_STATUSES } from '../../src/model/operation-status';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A failed operation whose status changed `changedAgo` ms ago, with its retry `retryIn` ms from now (negative: past). */
const failed = (changedAgo: number, retryIn?: number) => ({
  status: 'failed',
  updated_at: iso(NOW - changedAgo),
  ...(retryIn === undefined ? {} : { retry_at: iso(NOW + retryIn) }),
});

describe('operation status rules', () => {
  it.each([
    ['scheduling', 'Scheduling', 5_000],
    ['running', 'In progress', 5_000],
    ['cancelling', 'In progress (cancelling)', 5_000],
    ['finished', 'OK', false],
    ['failed', 'Error', 30_000],
    ['error', 'Error', false],
    ['cancelled', 'Cancelled', false],
    ['skipped', 'Skipped', false],
    ['paused_for_maintenance', 'paused_for_maintenance', 5_000],
  ] as const)('shows %s as "%s" and polls again after %s', (status, label, delay) => {
    expect(statusLabel(status)).toBe(label);
    expect(nextPollDelay(status, 5_000)).toBe(delay);
  });

  it('treats only the four ended statuses as final by status; failed may still be retried', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(['cancelled', 'error', 'finished', 'skipped']);
    expect(isTerminal('failed')).toBe(false);
    expect(isTerminal('something_new')).toBe(false);
  });

  it('keeps the chosen interval when it is slower than the slow poll for failed', () => {
    expect(nextPollDelay('failed', 60_000)).toBe(60_000);
  });

  it('polls a list at the pace of its most urgent member and stops when all are over', () => {
    expect(nextListPollDelay(['finished', 'failed'], 5_000)).toBe(30_000);
    expect(nextListPollDelay(['finished', 'failed', 'running'], 5_000)).toBe(5_000);
    expect(nextListPollDelay(['finished', 'skipped'], 5_000)).toBe(false);
    expect(nextListPollDelay([], 5_000)).toBe(false);
  });
});

describe('a failed operation', () => {
  it('is in flight (Error, awaiting a retry, polled slowly) while a retry is ahead or its status changed in the last 15 minutes', () => {
    for (const op of [failed(14 * MINUTE), failed(3 * 30 * 24 * 60 * MINUTE, 5 * MINUTE), failed(MINUTE, -MINUTE)]) {
      expect(isInFlight(op, NOW)).toBe(true);
      expect(outcomeOf(op, NOW)).toBe('awaiting-retry');
      expect(nextPollDelay(op, 5_000, NOW)).toBe(30_000);
    }
  });

  it('is over (Error, final, not polled) once no retry is ahead and nothing changed for 15 minutes', () => {
    const monthsOld = failed(90 * 24 * 60 * MINUTE, -90 * 24 * 60 * MINUTE + MINUTE);
    for (const op of [monthsOld, failed(16 * MINUTE), failed(15 * MINUTE, -MINUTE)]) {
      expect(isInFlight(op, NOW)).toBe(false);
      expect(outcomeOf(op, NOW)).toBe('failed');
      expect(nextPollDelay(op, 5_000, NOW)).toBe(false);
    }
    expect(statusLabel(monthsOld.status)).toBe('Error');
    expect(nextListPollDelay([monthsOld, { status: 'finished' }], 5_000, NOW)).toBe(false);
  });
});

describe('what the console shows of an operation', () => {
  it('decides its duration once: final when it ended, counting while in flight, what was reported for a failure', () => {
    const base = { created_at: '2026-11-22T11:00:00Z', total_duration_ms: 0 };
    expect(durationOf({ ...base, status: 'finished', total_duration_ms: 4_200 })).toEqual({ kind: 'final', ms: 4_200 });
    expect(durationOf({ ...base, status: 'running' })).toEqual({ kind: 'live', since: base.created_at });
    expect(durationOf({ ...base, status: 'quarantined' })).toEqual({ kind: 'live', since: base.created_at });
    expect(durationOf({ ...base, status: 'failed' })).toEqual({ kind: 'unknown' });
    expect(durationOf({ ...base, status: 'failed', total_duration_ms: 1_500 })).toEqual({ kind: 'final', ms: 1_500 });
  });

  it('keeps the newer of two copies, and never lets an equal or older copy undo a final status', () => {
    const copy = (status: string, updated_at: string) => ({ status, updated_at, total_duration_ms: 0, failures_count: 0 });
    const finished = copy('finished', '2026-11-22T12:00:05.000002Z');
    expect(newerCopy(finished, copy('quarantined', '2026-11-22T12:00:05.000002Z'))).toBe(finished);
    expect(newerCopy(finished, copy('running', '2026-11-22T12:00:05.000001Z'))).toBe(finished);
    const later = copy('running', '2026-11-22T12:00:05.000003Z');
    expect(newerCopy(finished, later)).toBe(later);
    const running = copy('running', '2026-11-22T12:00:01Z');
    const odd = copy('quarantined', '2026-11-22T12:00:01Z');
    expect(newerCopy(running, odd)).toBe(odd);
    expect(newerCopy(running, { ...running })).toBe(running);
  });
});
