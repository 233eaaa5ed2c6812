import { describeError, isDoneUnread, isUnknownOutcome } from '../../api/api-error';
import { LOCKED_MAX_TRIES } from '../../api/locked-retry';
import { isLocked, mayOfferRetry } from '../../api/retry-policy';
import type { Operation } from '../../api/schemas';
import { ErrorCallout } from '../../components/error-callout';
import { humanizeAction } from '../../lib/format';
import { statusLabel } from '../../model/operation-status';
import { UnknownOutcome } from './unknown-outcome';

/** "Apply config (In progress) to finish": what a request refused with 423 is waiting for. */
export function waitingFor(blockers: readonly Operation[]): string {
  if (blockers.length === 0) return 'another operation to finish';
  const names = blockers.slice(0, 3).map((op) => `${humanizeAction(op.action)} (${statusLabel(op.status)})`);
  const more = blockers.length > 3 ? ` and ${blockers.length - 3} more` : '';
  return `${names.join(', ')}${more} to finish`;
}

/** A request that was refused: still busy after every try (retry by hand), or the API's own message. */
export function RequestError({
  error,
  failedTitle,
  doneTitle,
  blockers,
  onRetry,
}: {
  error: Error | null;
  failedTitle: string;
  /** "The branch was created, but its details could not be read.": a 2xx whose body was unreadable. */
  doneTitle: string;
  blockers: readonly Operation[];
  onRetry: () => void;
}) {
  if (isDoneUnread(error)) {
    return (
      <div className="callout callout--warning" role="alert">
        <p className="callout__title">
          <span aria-hidden="true">✓ </span>
          {doneTitle}
        </p>
        <p>
          The API accepted it, but its answer could not be read, so what it started is not known. The lists on this page are being read again; there is no need
          to send it again.
        </p>
        {error.requestId && (
          <p className="muted">
            Request id: <code>{error.requestId}</code>
          </p>
        )}
      </div>
    );
  }
  if (isUnknownOutcome(error)) return <UnknownOutcome error={error} onRetry={onRetry} />;
  if (isLocked(error)) {
    return (
      <div className="callout callout--warning" role="alert">
        <p className="callout__title">
          <span aria-hidden="true">◷ </span>
          Still busy after {LOCKED_MAX_TRIES} tries: waiting for {waitingFor(blockers)}.
        </p>
        <p>Nothing was changed. Try again once the running work has finished.</p>
        <p className="muted">{error.message}</p>
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  const { message, requestId } = describeError(error);
  return <ErrorCallout title={failedTitle} message={message} requestId={requestId} {...(mayOfferRetry(error) ? { onRetry } : {})} />;
}
