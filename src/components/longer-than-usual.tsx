import { describeUsual, longerThanUsual, type UsualDuration } from '../model/usual-durations';
import { useNow } from '../lib/use-now';

interface LongerThanUsualProps {
  operation: { action: string; status: string; created_at: string; total_duration_ms: number };
  usual: ReadonlyMap<string, UsualDuration>;
}

/**
 * "Longer than usual (usually 2.1 s, p95 4.8 s)" beside an operation still in progress well past its
 * action's usual duration (model/usual-durations.ts states the rule), in words and a shape, never by
 * colour alone; nothing otherwise, and nothing once it ends.
 */
export function LongerThanUsual({ operation, usual }: LongerThanUsualProps) {
  const now = useNow(1_000);
  const figure = longerThanUsual(operation, usual, now);
  if (!figure) return null;
  return (
    <span className="longer-than-usual">
      <span aria-hidden="true">⚠ </span>Longer than usual <span className="longer-than-usual__usual">({describeUsual(figure)})</span>
    </span>
  );
}
