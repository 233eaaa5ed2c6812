import type { Operation } from '../../api/schemas';
import { LiveDuration } from '../../components/live-duration';
import { formatDuration } from '../../lib/format';
import { isTerminal, mayBeRetried } from '../../lib/operation-status';

/** Final duration once an operation ends; a live, ticking one while it is in flight. */
export function OperationDuration({ operation }: { operation: Operation }) {
  if (isTerminal(operation.status)) return <>{formatDuration(operation.total_duration_ms)}</>;
  if (mayBeRetried(operation.status)) {
    return <>{operation.total_duration_ms > 0 ? formatDuration(operation.total_duration_ms) : '—'}</>;
  }
  return <LiveDuration since={operation.created_at} />;
}
