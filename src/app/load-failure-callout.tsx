import type { ReactNode } from 'react';
import { describeError } from '../api/api-error';
import { ErrorCallout } from '../components/error-callout';
import type { LoadFailure } from './load-failure';

/**
 * A screen's failing first load, inline where its content would be: what failed, when the console
 * tries again by itself (if it still does), and Retry to try now.
 */
export function LoadFailureCallout({
  title,
  failure,
  onRetry,
  fetching,
  children,
}: {
  title: string;
  failure: LoadFailure;
  onRetry: () => void;
  /** The query is fetching: a Retry of a load the console gave up on is under way. */
  fetching: boolean;
  children?: ReactNode;
}) {
  return (
    <ErrorCallout
      title={title}
      {...describeError(failure.error)}
      nextTryMs={failure.nextTryMs}
      onRetry={onRetry}
      retrying={fetching && failure.nextTryMs === null}
    >
      {children}
    </ErrorCallout>
  );
}
