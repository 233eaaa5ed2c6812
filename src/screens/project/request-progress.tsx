import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { describeProblem } from '../../api/api-error';
import { LOCKED_MAX_TRIES, useLockedRetryBase } from '../../api/locked-retry';
import { invalidateLatestOperations } from '../../api/operations';
import { isLocked, isRefusedForNow, nextRetry } from '../../api/retry-policy';
import type { Operation } from '../../api/schemas';
import { retryCountdown } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { RequestError, waitingFor } from './request-error';

export interface RequestState {
  status: 'idle' | 'pending' | 'success' | 'error';
  failureCount: number;
  failureReason: Error | null;
  error: Error | null;
}

interface RequestProgressProps {
  projectId: string;
  request: RequestState;
  /** "Creating branch dev…" */
  pendingLabel: string;
  /** "Could not create branch dev." */
  failedTitle: string;
  /** "The branch was created, but its details could not be read." (2xx, unreadable answer) */
  doneTitle: string;
  /** The project's unfinished operations, as last fetched: what a 423 is waiting for. */
  blockers: readonly Operation[];
  onRetry: () => void;
  /** Stops waiting out a 423 (a dialog's Cancel does this instead). */
  onStop?: (() => void) | undefined;
}

const isAbort = (error: Error | null) => error?.name === 'AbortError';

/**
 * Where a request that starts operations stands: sending, waiting out a refusal that changed nothing
 * (423 project busy, 429 rate limited, 503 server busy; the console resends it with backoff), or
 * refused with the API's own message.
 */
export function RequestProgress({ projectId, request, pendingLabel, failedTitle, doneTitle, blockers, onRetry, onStop }: RequestProgressProps) {
  const { status, failureCount, failureReason, error } = request;
  const waiting = status === 'pending' && failureCount > 0 && isRefusedForNow(failureReason) ? failureReason : null;
  const firstRefusal = waiting !== null && isLocked(waiting) && failureCount === 1;
  const queryClient = useQueryClient();
  const now = useNow(1_000, waiting !== null);
  const retryBaseMs = useLockedRetryBase();
  const nextTry = waiting ? nextRetry(failureCount, waiting, retryBaseMs) : null;
  // Learn what holds the project (the newest page may predate it): one refresh per wait, not per try.
  useEffect(() => {
    if (firstRefusal) void invalidateLatestOperations(queryClient, projectId);
  }, [firstRefusal, queryClient, projectId]);
  return (
    <>
      {/* Always mounted, so screen readers hear each change of what the request is doing. */}
      <div role="status" className="request-progress">
        {waiting ? (
          <div className="callout callout--warning">
            <p className="callout__title">
              <span aria-hidden="true">◷ </span>
              {isLocked(waiting) ? `The project is busy: waiting for ${waitingFor(blockers)}.` : `${describeProblem(waiting)} Waiting to send it again.`}
            </p>
            <p>
              {nextTry && retryCountdown(nextTry, now, true)} (try {failureCount + 1} of {LOCKED_MAX_TRIES}). Nothing has been changed yet.
            </p>
            <p className="muted">{waiting.message}</p>
            {onStop && (
              <button type="button" onClick={onStop}>
                Stop trying
              </button>
            )}
          </div>
        ) : status === 'pending' ? (
          <p className="muted">{pendingLabel}</p>
        ) : null}
      </div>
      {status === 'error' && !isAbort(error) && (
        <RequestError error={error} failedTitle={failedTitle} doneTitle={doneTitle} blockers={blockers} onRetry={onRetry} />
      )}
    </>
  );
}
