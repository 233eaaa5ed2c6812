import { formatDateTime } from '../lib/date-time-format';
import { useTimeZone } from '../lib/time-zone';

/**
 * An absolute time, in UTC or local time as the person chose (the header's switch). In a narrow cell it wraps
 * between the date and the time, never inside the date (layout.css).
 */
export function DateTime({ iso }: { iso: string }) {
  const [zone] = useTimeZone();
  const text = formatDateTime(iso, zone);
  const space = text.indexOf(' ');
  if (space === -1) return <time dateTime={iso}>{text}</time>;
  return (
    <time dateTime={iso}>
      <span className="date-time__day">{text.slice(0, space)}</span>
      {text.slice(space)}
    </time>
  );
}
