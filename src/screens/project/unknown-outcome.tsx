import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ApiError } from '../../api/api-error';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';
import { operationQueries } from '../../api/operations';

/**
 * A change sent with no answer (the connection dropped): the API may or may not have made it. The
 * branches, computes and operations it could have touched are read again first; Retry is offered only
 * once they are on screen, so the person can see whether it happened before sending it again.
 */
export function UnknownOutcome({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  const client = useQueryClient();
  const [checkedFor, setCheckedFor] = useState<ApiError | null>(null);
  useEffect(() => {
    let current = true;
    const touched = [branchQueries.all(), endpointQueries.all(), operationQueries.lists()];
    void Promise.allSettled(touched.map((queryKey) => client.invalidateQueries({ queryKey }))).then(() => {
      if (current) setCheckedFor(error);
    });
    return () => {
      current = false;
    };
  }, [client, error]);
  const checked = checkedFor === error;
  return (
    <div className="callout callout--warning" role="alert">
      <p className="callout__title">
        <span aria-hidden="true">? </span>
        The connection dropped before the API answered: it is not known whether this change was made.
      </p>
      {checked ? (
        <>
          <p>The branches, computes and operations on this page were read again: check them before sending it again.</p>
          <button type="button" onClick={onRetry}>
            Retry
          </button>
        </>
      ) : (
        <p>Reading the branches, computes and operations again to see what happened…</p>
      )}
    </div>
  );
}
