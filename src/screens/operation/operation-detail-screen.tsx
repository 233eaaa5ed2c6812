import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { describeError, isApiError } from '../../api/api-error';
import { branchQueries } from '../../api/branches';
import { delayAfterFailedPolls } from '../../api/polling';
import { endpointQueries } from '../../api/endpoints';
import { mergeOperationPages, operationQueries } from '../../api/operations';
import { projectQueries } from '../../api/projects';
import type { Operation } from '../../api/schemas';
import { BusyBanner } from '../../components/busy-banner';
import { IntervalSelect } from '../../components/interval-select';
import { LiveDuration } from '../../components/live-duration';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';
import { formatDuration, formatUtc, humanizeAction } from '../../lib/format';
import {
  backoffDelay,
  isTerminal,
  mayBeRetried,
  nextPollDelay,
  statusLabel,
} from '../../lib/operation-status';
import { useNow } from '../../lib/use-now';
import { usePageVisible } from '../../lib/use-page-visible';
import { usePollInterval } from '../../lib/use-poll-interval';
import { loadFailure } from '../../api/load-failure';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { paths } from '../../config/paths';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';
import { WatchButton } from '../../features/watch/watch-button';

/** How old the cached newest page may be and still speak for the project's running work. */
const bannerFreshnessMs = (intervalMs: number) => Math.max(2 * intervalMs, 10_000);

function secondsSince(time: number, now: number): number {
  return Math.max(0, Math.floor((now - time) / 1_000));
}

function secondsUntil(time: number, now: number): number {
  return Math.max(0, Math.ceil((time - now) / 1_000));
}

/** Tells screen readers when the status changes (not on first load), and shows it in the tab title. */
function useStatusAnnouncement(operation: Operation | undefined): string {
  const [announcement, setAnnouncement] = useState('');
  const previous = useRef<string | undefined>(undefined);
  const status = operation?.status;
  const action = operation ? humanizeAction(operation.action) : undefined;

  useEffect(() => {
    if (status === undefined || action === undefined) return;
    const label = statusLabel(status);
    document.title = `${label} · ${action} · Ops Console`;
    if (previous.current !== undefined && previous.current !== status) {
      setAnnouncement(`${action}: status changed to ${label}.`);
    }
    previous.current = status;
  }, [status, action]);

  useEffect(() => () => void (document.title = 'Ops Console'), []);
  return announcement;
}

export function OperationDetailScreen() {
  const { projectId = '', operationId = '' } = useParams();
  const [intervalMs, setIntervalMs] = usePollInterval();
  const visible = usePageVisible();
  const project = useQuery(projectQueries.detail(projectId));
  const branches = useQuery(branchQueries.list(projectId));
  const endpoints = useQuery(endpointQueries.list(projectId));

  const detailOptions = operationQueries.detail(projectId, operationId);
  const refetchInterval = useSharedPoll<Operation, Error>({
    queryKey: detailOptions.queryKey,
    // Back off only once there is data to keep showing; a failed first load is retried at the interval.
    delay: (state) => (state.data ? delayAfterFailedPolls(state, intervalMs) : undefined) ?? nextPollDelay(state.data?.status, intervalMs),
  });
  const detail = useQuery({ ...detailOptions, refetchInterval });
  const operation = detail.data;
  const detailFailure = loadFailure(detail);
  const announcement = useStatusAnnouncement(operation);
  const now = useNow(1_000);
  // The project's newest page as last polled (by the watch list or the history): read, never fetched here.
  const newest = useQuery({ ...operationQueries.latest(projectId), enabled: false });
  const newestFresh = newest.data && now - newest.dataUpdatedAt < bannerFreshnessMs(intervalMs) ? [newest.data] : [];
  const inProject = mergeOperationPages(operation ? [{ operations: [operation] }, ...newestFresh] : newestFresh);

  const projectName = project.data?.name ?? projectId;
  const branch = operation?.branch_id ? branches.data?.find((b) => b.id === operation.branch_id) : undefined;
  const compute = operation?.endpoint_id ? endpoints.data?.find((e) => e.id === operation.endpoint_id) : undefined;
  const pollDelay = operation ? nextPollDelay(operation.status, intervalMs) : false;
  const reconnecting = detail.failureCount > 0 || detail.isRefetchError;
  const lastChecked = Math.max(detail.dataUpdatedAt, detail.errorUpdatedAt);
  const retryAfterMs = isApiError(detail.error) ? detail.error.retryAfterMs : undefined;
  const nextCheckIn =
    pollDelay === false
      ? null
      : secondsUntil(
          lastChecked + (reconnecting ? backoffDelay(Math.max(1, detail.failureCount), intervalMs, retryAfterMs) : pollDelay),
          now,
        );

  return (
    <section>
      <p className="breadcrumbs">
        <Link to={paths.home()}>Projects</Link> <span aria-hidden="true">/</span>{' '}
        <Link to={paths.project(projectId)}>{projectName}</Link> <span aria-hidden="true">/</span> Operation
      </p>
      <h1 tabIndex={-1}>{operation ? humanizeAction(operation.action) : 'Operation'}</h1>
      <p className="visually-hidden" aria-live="polite" aria-atomic="true">
        {announcement}
      </p>
      <BusyBanner operations={inProject} branchNames={new Map(branches.data?.map((b) => [b.id, b.name]))} />

      {!operation && detailFailure ? (
        <LoadFailureCallout
          title="Could not load this operation."
          failure={detailFailure}
          onRetry={() => void detail.refetch()}
          fetching={detail.isFetching}
        >
          {isApiError(detailFailure.error) && detailFailure.error.status === 404 && (
            <p>
              It may have been pruned (the platform keeps about 6 months), or it belongs to a project this key cannot
              see. <Link to={paths.project(projectId)}>Back to the project&apos;s operations</Link>
            </p>
          )}
        </LoadFailureCallout>
      ) : !operation ? (
        <p role="status" className="muted detail-placeholder">
          Loading the operation…
        </p>
      ) : (
        <>
          <dl className="detail-status">
            <dt className="detail-status__label">Status</dt>
            <dd data-testid="operation-status">
              <StatusBadge status={operation.status} />
            </dd>
          </dl>

          <div className="poll-bar" role="group" aria-label="Live updates">
            {pollDelay === false ? (
              <span>This operation has ended; no more checks.</span>
            ) : !visible ? (
              <span>Checks paused while this tab is hidden.</span>
            ) : (
              <span>
                Last checked {secondsSince(lastChecked, now)} s ago · next check in {nextCheckIn ?? 0} s
              </span>
            )}{' '}
            <button type="button" onClick={() => void detail.refetch()} disabled={detail.isFetching}>
              Check now
            </button>{' '}
            <WatchButton
              operation={operation}
              projectName={project.data?.name}
              branchName={branch?.name}
              computeName={compute?.name ?? compute?.id}
            />{' '}
            <IntervalSelect value={intervalMs} onChange={setIntervalMs} />
          </div>
          {reconnecting && (
            <p className="callout callout--warning" role="status">
              <span aria-hidden="true">⚠ </span>
              Reconnecting… the last check failed ({describeError(detail.error ?? detail.failureReason).message}). The
              details below are from {secondsSince(detail.dataUpdatedAt, now)} s ago.
            </p>
          )}

          {mayBeRetried(operation.status) && (
            <div className="callout callout--error">
              <p className="callout__title">This operation failed{operation.failures_count > 1 ? ` ${operation.failures_count} times` : ''}.</p>
              {operation.error && <p>{operation.error}</p>}
              <p>
                The platform may retry it
                {operation.retry_at ? <> (next attempt around {formatUtc(operation.retry_at)})</> : null}; this page keeps
                checking every {Math.max(intervalMs, 30_000) / 1_000} s.
              </p>
            </div>
          )}

          <dl className="fields">
            <dt>Operation</dt>
            <dd>
              {humanizeAction(operation.action)} <code className="muted">{operation.action}</code>
            </dd>
            <dt>Project</dt>
            <dd>
              <Link to={paths.project(projectId)}>{projectName}</Link>
            </dd>
            <dt>Branch</dt>
            <dd>
              {operation.branch_id ? (
                <Link to={paths.project(projectId)}>{branch?.name ?? operation.branch_id}</Link>
              ) : (
                '—'
              )}
              {branch && <code className="muted"> {branch.id}</code>}
            </dd>
            <dt>Compute</dt>
            <dd>
              {operation.endpoint_id ? (
                <Link to={paths.project(projectId)}>{compute?.name ?? operation.endpoint_id}</Link>
              ) : (
                '—'
              )}
              {compute?.name && <code className="muted"> {compute.id}</code>}
            </dd>
            <dt>Duration</dt>
            <dd>
              {isTerminal(operation.status) || operation.total_duration_ms > 0 ? (
                formatDuration(operation.total_duration_ms)
              ) : (
                <LiveDuration since={operation.created_at} />
              )}
            </dd>
            <dt>Created</dt>
            <dd>
              {formatUtc(operation.created_at)} (<RelativeTime iso={operation.created_at} now={now} />)
            </dd>
            <dt>Last status change</dt>
            <dd>
              {formatUtc(operation.updated_at)} (<RelativeTime iso={operation.updated_at} now={now} />)
            </dd>
            <dt>Failures</dt>
            <dd>{operation.failures_count}</dd>
            {operation.retry_at && (
              <>
                <dt>Retry at</dt>
                <dd>{formatUtc(operation.retry_at)}</dd>
              </>
            )}
            {operation.error && (
              <>
                <dt>Error</dt>
                <dd>{operation.error}</dd>
              </>
            )}
            <dt>Operation id</dt>
            <dd>
              <code>{operation.id}</code>
            </dd>
          </dl>
        </>
      )}
    </section>
  );
}
