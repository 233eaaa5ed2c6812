import { useQuery } from '@tanstack/react-query';
import { useId, type ReactNode } from 'react';
import { isApiError } from '../../api/api-error';
import { apiKeyQueries, type KeyOwner } from '../../api/api-keys';
import { loadFailure } from '../../api/load-failure';
import type { ApiKey } from '../../api/schemas';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableSkeleton } from '../../components/table-skeleton';
import { KeysTable, ORGANIZATION_KEY_COLUMNS, PERSONAL_KEY_COLUMNS } from './keys-table';
import { explainRefusal, type OwnerLabel, type SessionKeyKind } from './refusal';

interface KeysSectionProps {
  owner: KeyOwner;
  ownerLabel: OwnerLabel;
  title: string;
  emptyText: string;
  sessionKind: SessionKeyKind;
  /** Organization lists only: project names for the Scope column. */
  projectNames?: ReadonlyMap<string, string> | undefined;
  onRevoke?: ((key: ApiKey, trigger: HTMLElement) => void) | undefined;
  /** Shown above the list: e.g. why a revoke of one of these keys was refused. */
  notice?: ReactNode;
  /** Shown instead of an error when the API refuses the list with 403 (e.g. a member, not an admin). */
  whenForbidden?: ReactNode;
  /**
   * Whether to ask for the list: `fetch` (default); `wait` while it is not yet known whether the key
   * may; `forbidden` when it is known it may not (whenForbidden shows, no request that would 403).
   */
  listing?: 'fetch' | 'wait' | 'forbidden';
  now: number;
}

/**
 * One owner's keys with every state: loading (same size as the table), a failing first load (with when the
 * console tries again, and Retry), empty, the list (kept through a failed refresh: the notices say that one).
 */
export function KeysSection({
  owner,
  ownerLabel,
  title,
  emptyText,
  sessionKind,
  projectNames,
  onRevoke,
  notice,
  whenForbidden,
  listing = 'fetch',
  now,
}: KeysSectionProps) {
  const titleId = useId();
  const listOptions = apiKeyQueries.list(owner);
  const keys = useQuery({ ...listOptions, enabled: listing === 'fetch' });
  const columns = [...(projectNames ? ORGANIZATION_KEY_COLUMNS : PERSONAL_KEY_COLUMNS), ...(onRevoke ? ['Actions'] : [])];
  const forbidden = isApiError(keys.error) && keys.error.status === 403;
  // A first load that fails says so, also while the console is still trying again by itself (503, 429, no answer).
  const failure = loadFailure(keys, listOptions.queryKey);

  let body: ReactNode;
  if (listing === 'forbidden' && whenForbidden) {
    body = whenForbidden;
  } else if (keys.isError && forbidden && whenForbidden) {
    body = whenForbidden;
  } else if (failure) {
    const explained = explainRefusal(failure.error, 'list', ownerLabel, sessionKind);
    body = (
      <LoadFailureCallout
        title={`Could not load ${title.toLowerCase()}.`}
        failure={{ ...failure, message: explained.reason, requestId: explained.requestId }}
        onRetry={() => void keys.refetch()}
        fetching={keys.isFetching}
      >
        {explained.apiMessage && <p className="muted">The API said: {explained.apiMessage}</p>}
      </LoadFailureCallout>
    );
  } else if (keys.data === undefined) {
    body = <TableSkeleton columns={columns} rows={3} label={`Loading ${title.toLowerCase()}…`} />;
  } else if (keys.data.length === 0) {
    body = <p className="empty">{emptyText}</p>;
  } else {
    body = <KeysTable caption={title} keys={keys.data} projectNames={projectNames} onRevoke={onRevoke} now={now} />;
  }

  return (
    <section className="keys-section" aria-labelledby={titleId}>
      <h2 id={titleId} tabIndex={-1}>
        {title}
      </h2>
      {notice}
      {body}
    </section>
  );
}
