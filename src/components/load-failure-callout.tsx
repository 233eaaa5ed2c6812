import type { ReactNode } from 'react';
import type { Wait } from '../lib/format';
import { ErrorCallout } from './error-callout';

/** What the callout shows of a failing first load (api/load-failure.ts describes one). */
export interface FailedLoad {
  /** Where the page-wide notices know this fault: shown here, it is not repeated there. */
  id: string;
  message: string;
  requestId?: string | undefined;
  /** When the console tries again by itself; null when it has given up. */
  nextTry: Wait | null;
}

/**
 * A screen's failing first load, inline where its content would be: what failed, a countdown to
 * when the console tries again by itself (if it still does), and Retry to try now.
 */
export function LoadFailureCallout({
  title,
  failure,
  onRetry,
  fetching,
  children,
}: {
  title: string;
  failure: FailedLoad;
  onRetry: () => void;
  /** The query is fetching: a Retry of a load the console gave up on is under way. */
  fetching: boolean;
  children?: ReactNode;
}) {
  return (
    <ErrorCallout
      title={title}
      message={failure.message}
      requestId={failure.requestId}
      nextTry={failure.nextTry}
      faultId={failure.id}
      onRetry={onRetry}
      retrying={fetching && failure.nextTry === null}
    >
      {children}
    </ErrorCallout>
  );
}
