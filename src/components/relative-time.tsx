import { useId } from 'react';
import { formatRelative, formatUtc } from '../lib/format';

/** "5 minutes ago", with the exact UTC time shown on hover and on keyboard focus. */
export function RelativeTime({ iso, now }: { iso: string; now: number }) {
  const tipId = useId();
  return (
    <time className="reltime" dateTime={iso} tabIndex={0} aria-describedby={tipId}>
      {formatRelative(iso, now)}
      <span className="reltime__tip" id={tipId} role="tooltip">
        {formatUtc(iso)}
      </span>
    </time>
  );
}
