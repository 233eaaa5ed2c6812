import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatClock, formatDateTime, formatDay, fromFieldValue, toFieldText, toFieldValue } from '../../src/lib/date-time-format';
import { localOffset } from '../../src/lib/time-zone';

// Local time here is Berlin's (Node reads TZ whenever it changes), so local and UTC differ.
const zone = process.env.TZ;
beforeEach(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('times in UTC or local time', () => {
  it('formats a time in UTC, or in local time with its offset', () => {
    expect(formatDateTime('2026-11-22T12:00:05.123456Z', 'utc')).toBe('2026-11-22 12:00:05 UTC');
    expect(formatDateTime('2026-11-22T12:00:05Z', 'local')).toBe('2026-11-22 13:00:05 UTC+01:00');
    expect(formatDateTime('2026-07-01T23:30:00Z', 'local')).toBe('2026-07-02 01:30:00 UTC+02:00');
    expect(localOffset(new Date('2026-11-22T12:00:05Z'))).toBe('UTC+01:00');
  });

  it('reads and writes a from–to field in the chosen zone', () => {
    expect(toFieldValue('2026-11-22T12:34:56Z', 'utc')).toBe('2026-11-22T12:34');
    expect(fromFieldValue('2026-11-22T12:34', 'utc')).toBe('2026-11-22T12:34:00.000Z');
    expect(toFieldValue('2026-11-22T12:34:00Z', 'local')).toBe('2026-11-22T13:34');
    expect(fromFieldValue('2026-11-22T13:34', 'local')).toBe('2026-11-22T12:34:00.000Z');
    expect(fromFieldValue('', 'utc')).toBeUndefined();
    // The field's text is the page's own way of writing time: 24-hour, a space between date and time.
    expect(toFieldText('2026-11-22T21:34:56Z', 'utc')).toBe('2026-11-22 21:34');
    expect(fromFieldValue('2026-11-22 21:34', 'utc')).toBe('2026-11-22T21:34:00.000Z');
    expect(fromFieldValue(' 2026-11-22 21:34:10 ', 'utc')).toBe('2026-11-22T21:34:10.000Z');
    expect(fromFieldValue('2026-11-2', 'utc')).toBeUndefined();
    expect(fromFieldValue('11/22/2026, 09:34 PM', 'utc')).toBeUndefined();
  });

  it('says a day and a clock time briefly, with the year only when it is not this one', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(formatDay(Date.parse('2026-03-12T08:00:00Z'), 'utc', now)).toBe('12 Mar');
    expect(formatDay(Date.parse('2025-03-12T08:00:00Z'), 'utc', now)).toBe('12 Mar 2025');
    expect(formatClock(Date.parse('2026-03-12T08:05:00Z'), 'utc')).toBe('08:05');
    expect(formatClock(Date.parse('2026-03-12T08:05:00Z'), 'local')).toBe('09:05');
    expect(formatDay(Date.parse('2026-03-12T23:30:00Z'), 'local', now)).toBe('13 Mar');
  });
});
