import type { Operation } from '../../api/schemas';
import { DateTime } from '../../components/date-time';

/**
 * A failed operation: how often it failed and why, and either when the platform may try again (while
 * a retry is ahead, this page keeps checking at `pollDelay`) or that it is over (false: final).
 */
export function OperationFailureCallout({ operation, pollDelay }: { operation: Operation; pollDelay: number | false }) {
  return (
    <div className="callout callout--error">
      <p className="callout__title">This operation failed{operation.failures_count > 1 ? ` ${operation.failures_count} times` : ''}.</p>
      {operation.error && <p>{operation.error}</p>}
      {pollDelay === false ? (
        <p>
          No retry is ahead: the platform has left it as it is since <DateTime iso={operation.updated_at} />, so it is final.
        </p>
      ) : (
        <p>
          The platform may retry it
          {operation.retry_at ? (
            <>
              {' '}
              (next attempt around <DateTime iso={operation.retry_at} />)
            </>
          ) : null}
          ; this page keeps checking every {Math.round(pollDelay / 1_000)} s.
        </p>
      )}
    </div>
  );
}
