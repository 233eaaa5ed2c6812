import { useStoredChoice } from './use-stored-state';

// Whether absolute times read in UTC or in the browser's local time: one preference, switched in the
// header and remembered, read by every place that shows a date and time (date-time-format.ts formats them).

/** How absolute times read: in UTC, or in the browser's local time (kept here, per browser). */
export type TimeZoneChoice = 'utc' | 'local';

/** 7 → "07". */
export const twoDigits = (n: number) => String(n).padStart(2, '0');

/** "UTC+01:00": the browser's offset from UTC at `date` (daylight saving included). */
export function localOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${twoDigits(Math.floor(abs / 60))}:${twoDigits(abs % 60)}`;
}

export const TIME_ZONE_CHOICES: readonly TimeZoneChoice[] = ['utc', 'local'];
const STORAGE_KEY = 'ops-console.time-zone';

/** The person's choice (UTC until they pick local time), shared live by everything that shows times. */
export function useTimeZone(): [TimeZoneChoice, (zone: TimeZoneChoice) => void] {
  return useStoredChoice(STORAGE_KEY, TIME_ZONE_CHOICES, 'utc');
}
