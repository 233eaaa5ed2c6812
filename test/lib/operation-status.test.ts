import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  isTerminal,
  nextListPollDelay,
  nextPollDelay,
  statusLabel,
  TERMINAL_STATUSES,
} from '../../src/lib/operation-status';

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

  it('treats only the four ended statuses as final; failed may still be retried', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(['cancelled', 'error', 'finished', 'skipped']);
    expect(isTerminal('failed')).toBe(false);
    expect(isTerminal('something_new')).toBe(false);
  });

  it('keeps the chosen interval when it is slower than the slow poll for failed', () => {
    expect(nextPollDelay('failed', 60_000)).toBe(60_000);
  });

  it('polls a list at the pace of its most urgent member and stops when all are final', () => {
    expect(nextListPollDelay(['finished', 'failed'], 5_000)).toBe(30_000);
    expect(nextListPollDelay(['finished', 'failed', 'running'], 5_000)).toBe(5_000);
    expect(nextListPollDelay(['finished', 'skipped'], 5_000)).toBe(false);
    expect(nextListPollDelay([], 5_000)).toBe(false);
  });

  it('backs off exponentially after failed polls, capped, but never sooner than Retry-After', () => {
    expect(backoffDelay(1, 5_000)).toBe(5_000);
    expect(backoffDelay(2, 5_000)).toBe(10_000);
    expect(backoffDelay(3, 5_000)).toBe(20_000);
    expect(backoffDelay(10, 5_000)).toBe(60_000);
    expect(backoffDelay(1, 5_000, 42_000)).toBe(42_000);
  });
});
