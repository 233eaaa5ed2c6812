import type { ReactNode } from 'react';

interface ErrorCalloutProps {
  title: string;
  message: string;
  requestId?: string | undefined;
  onRetry?: () => void;
  retrying?: boolean;
  /** Set while the console tries again by itself: when, so the person may wait or retry now. */
  nextTryMs?: number | null | undefined;
  children?: ReactNode;
}

/** A first-load failure, inline where the content would be, with a way to try again. */
export function ErrorCallout({ title, message, requestId, onRetry, retrying = false, nextTryMs, children }: ErrorCalloutProps) {
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
      {nextTryMs != null && <p>Trying again by itself in {Math.max(1, Math.ceil(nextTryMs / 1_000))} s.</p>}
      {children}
      {onRetry && (
        <button type="button" onClick={onRetry} disabled={retrying}>
          {retrying ? 'Retrying…' : 'Retry'}
        </button>
      )}
    </div>
  );
}
