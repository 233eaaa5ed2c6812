import { formatDuration } from '../lib/format';
import { durationOf } from '../model/operation-status';
import { LiveDuration } from './live-duration';

/** An operation's duration as the status rules decide it: final, ticking while in flight, or "—" when not reported. */
export function OperationDuration({ operation }: { operation: { status: string; created_at: string; total_duration_ms: number } }) {
  const duration = durationOf(operation);
  if (duration.kind === 'live') return <LiveDuration since={duration.since} />;
  if (duration.kind === 'final') return <>{formatDuration(duration.ms)}</>;
  return <>—</>;
}
