import { elapsedSince, formatDuration } from '../lib/format';
import { useNow } from '../lib/use-now';

/** Time since `since`, ticking every second; for work that has not finished. */
export function LiveDuration({ since }: { since: string }) {
  const now = useNow(1_000);
  return (
    <span className="live-duration">
      {formatDuration(elapsedSince(since, now))}
      <span className="visually-hidden"> so far</span>
    </span>
  );
}
