// Absolute times as the console shows them, in UTC or in local time (lib/time-zone.ts holds the
// choice). By hand, like format.ts: an Intl formatter loads locale data on the first paint of a table.
import { formatUtc } from './format';
import { localOffset, twoDigits as two, type TimeZoneChoice } from './time-zone';

/** "2026-11-22 12:00:05 UTC", or in local time "2026-11-22 13:00:05 UTC+01:00". */
export function formatDateTime(iso: string, zone: TimeZoneChoice): string {
  if (zone === 'utc') return formatUtc(iso);
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  return `${day} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${localOffset(date)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "12 Mar", with the year when it is not the year of `now` ("12 Mar 2025"). */
export function formatDay(time: number, zone: TimeZoneChoice, now: number): string {
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return '';
  const utc = zone === 'utc';
  const year = utc ? date.getUTCFullYear() : date.getFullYear();
  const thisYear = utc ? new Date(now).getUTCFullYear() : new Date(now).getFullYear();
  const day = `${utc ? date.getUTCDate() : date.getDate()} ${MONTHS[utc ? date.getUTCMonth() : date.getMonth()] ?? ''}`;
  return year === thisYear ? day : `${day} ${year}`;
}

/** "14:05" in the chosen zone: for axis ticks. */
export function formatClock(time: number, zone: TimeZoneChoice): string {
  const date = new Date(time);
  return zone === 'utc' ? `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}` : `${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A `datetime-local` field's value ("2026-11-22T12:00") for an ISO time, read in the chosen zone. */
/** How a From/To field writes a time: as the page does, 24-hour, a space between date and time (`2026-11-22 13:34`). */
export function toFieldText(iso: string | undefined, zone: TimeZoneChoice): string {
  return toFieldValue(iso, zone).replace('T', ' ');
}

export function toFieldValue(iso: string | undefined, zone: TimeZoneChoice): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  if (zone === 'utc') return date.toISOString().slice(0, 16);
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/**
 * The ISO time a From/To field's text means in the chosen zone (`2026-11-22 13:34`, the page's own way of writing
 * time, or the `T` form); undefined when empty or not a time.
 */
export function fromFieldValue(text: string, zone: TimeZoneChoice): string | undefined {
  const parts = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2})?)$/.exec(text.trim());
  if (!parts) return undefined;
  const value = `${parts[1]}T${parts[2]}`;
  const time = zone === 'utc' ? Date.parse(`${value}Z`) : new Date(value).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
