import type { ReactNode } from 'react';
import { retryCountdown, type Wait } from '../lib/format';
import { useShownInline } from '../lib/inline-faults';
import { useNow } from '../lib/use-now';

interface ErrorCalloutProps {
  title: string;
  message: string;
  requestId?: string | undefined;
  onRetry?: () => void;
  retrying?: boolean;
  /** Set while the console tries again by itself: when, so the person may wait or retry now. */
  nextTry?: Wait | null | undefined;
  /** The fault's id where page-wide notices know it: shown here, it is not repeated there. */
  faultId?: string | undefined;
  children?: ReactNode;
}

/** A failure, inline where the content would be, with a way to try again. */
export function ErrorCallout({ title, message, requestId, onRetry, retrying = false, nextTry, faultId, children }: ErrorCalloutProps) {
  useShownInline(faultId);
  const now = useNow(1_000, nextTry != null);
  return (
    <div className="callout callout--error" role="alert">
      <p className="callout__title">
        <span aria-hidden="true">✕ </span>
        {title}
      </p>
      <p>{message}</p>
      {requestId && (
        <p className="muted">
          Request id: <code>{requestId}</code>
        </p>
      )}
      {nextTry && <p>{retryCountdown(nextTry, now, true)}.</p>}
      {children}
      {onRetry && (
        <button type="button" onClick={onRetry} disabled={retrying}>
          {retrying ? 'Retrying…' : 'Retry'}
        </button>
      )}
    </div>
  );
}
