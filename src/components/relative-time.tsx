import { formatDateTime } from '../lib/date-time-format';
import { formatPast } from '../lib/format';
import { useTimeZone } from '../lib/time-zone';

/**
 * When a past event happened: "5 minutes ago" (never in the future), with the exact time (UTC or local, as chosen) shown on hover and keyboard focus. The
 * exact time is part of the element's text, so screen readers hear both without a separate description.
 */
export function RelativeTime({ iso, now }: { iso: string; now: number }) {
  const [zone] = useTimeZone();
  return (
    <time className="reltime" dateTime={iso} tabIndex={0}>
      {formatPast(iso, now)}
      <span className="reltime__tip"> ({formatDateTime(iso, zone)})</span>
    </time>
  );
}
