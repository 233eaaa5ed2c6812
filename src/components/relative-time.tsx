import { formatRelative, formatUtc } from '../lib/format';

/**
 * "5 minutes ago", with the exact UTC time shown on hover and keyboard focus. The exact time is part of
 * the element's text, so screen readers hear both without a separate description.
 */
export function RelativeTime({ iso, now }: { iso: string; now: number }) {
  return (
    <time className="reltime" dateTime={iso} tabIndex={0}>
      {formatRelative(iso, now)}
      <span className="reltime__tip"> ({formatUtc(iso)})</span>
    </time>
  );
}
