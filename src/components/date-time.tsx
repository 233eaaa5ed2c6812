import { formatDateTime } from '../lib/date-time-format';
import { useTimeZone } from '../lib/time-zone';

/** An absolute time, in UTC or local time as the person chose (the header's switch). */
export function DateTime({ iso }: { iso: string }) {
  const [zone] = useTimeZone();
  return <time dateTime={iso}>{formatDateTime(iso, zone)}</time>;
}
