import { describe, expect, it } from 'vitest';
import { formatDuration, formatPast, formatRelative, formatUtc, humanizeAction } from '../../src/lib/format';

describe('humanizeAction', () => {
  it('shows API actions with spaces, as the platform console does', () => {
    expect(humanizeAction('create_branch')).toBe('Create branch');
    expect(humanizeAction('check_availability')).toBe('Check availability');
    expect(humanizeAction('delete_tenant')).toBe('Delete tenant');
  });

  it('shows anything that is not a snake_case word as it came', () => {
    expect(humanizeAction('Weird-Action!')).toBe('Weird-Action!');
    expect(humanizeAction('')).toBe('');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [250, '250 ms'],
    [1_234, '1.2 s'],
    [42_000, '42 s'],
    [75_000, '1 min 15 s'],
    [3_900_000, '1 h 5 min'],
    [90_000_000, '1 d 1 h'],
    [-5, '—'],
  ])('%i ms reads "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('times', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');

  it('writes exact times in UTC', () => {
    expect(formatUtc('2026-11-22T11:58:03Z')).toBe('2026-11-22 11:58:03 UTC');
  });

  it('writes relative times in words', () => {
    expect(formatRelative('2026-11-22T11:58:00Z', now)).toBe('2 minutes ago');
    expect(formatRelative('2026-11-22T11:59:58Z', now)).toBe('just now');
    expect(formatRelative('2026-11-21T12:00:00Z', now)).toBe('yesterday');
    expect(formatRelative('2026-11-22T11:00:00Z', now)).toBe('1 hour ago');
    expect(formatRelative('2026-11-22T12:00:30Z', now)).toBe('in 30 seconds');
    expect(formatRelative('2026-06-22T12:00:00Z', now)).toBe('5 months ago');
    expect(formatRelative('not a date', now)).toBe('not a date');
  });

  it('never puts a past event in the future: a moment ahead of the page’s clock is "just now"', () => {
    expect(formatPast('2026-11-22T12:00:06Z', now)).toBe('just now');
    expect(formatPast('2026-11-22T12:00:30Z', now)).toBe('just now');
    expect(formatPast('2026-11-22T11:58:00Z', now)).toBe('2 minutes ago');
    expect(formatPast('not a date', now)).toBe('not a date');
  });
});
