import type { Operation } from '../../api/schemas';
import { formatUtc } from '../../lib/format';

/** A failed operation the platform may still retry: how often it failed, why, and when it may try again. */
export function OperationFailureCallout({ operation, intervalMs }: { operation: Operation; intervalMs: number }) {
  return (
    <div className="callout callout--error">
      <p className="callout__title">This operation failed{operation.failures_count > 1 ? ` ${operation.failures_count} times` : ''}.</p>
      {operation.error && <p>{operation.error}</p>}
      <p>
        The platform may retry it
        {operation.retry_at ? <> (next attempt around {formatUtc(operation.retry_at)})</> : null}; this page keeps
        checking every {Math.max(intervalMs, 30_000) / 1_000} s.
      </p>
    </div>
  );
}
