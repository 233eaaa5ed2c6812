import { hashKey, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { describeError, isApiError } from '../../api/api-error';
import { archiveQueries, isCovered, isKeptByArchive } from '../../api/archive';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';
import { loadFailure } from '../../api/load-failure';
import { mergeCopies, operationQueries } from '../../api/operations';
import { projectQueries } from '../../api/projects';
import { nextPollDelay, nextRequest, nextRequestDelay } from '../../api/retry-policy';
import type { Operation } from '../../api/schemas';
import { BusyBanner } from '../../components/busy-banner';
import { LongerThanUsual } from '../../components/longer-than-usual';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { StatusBadge } from '../../components/status-badge';
import { paths } from '../../config/paths';
import { useUsualDurations } from '../../features/history/usual-durations/use-usual-durations';
import { StartedBy, useStarters } from '../../features/session/started-by';
import { humanizeAction, retryCountdown, secondsLeft, secondsSince } from '../../lib/format';
import { mayBeRetried } from '../../model/operation-status';
import { useShownInline } from '../../lib/inline-faults';
import { useSharedPoll } from '../../lib/poll-sharing/use-shared-polls';
import { canRunLong, longerThanUsual } from '../../model/usual-durations';
import { useNow } from '../../lib/use-now';
import { usePageVisible } from '../../lib/use-page-visible';
import { usePollInterval } from '../../api/use-poll-interval';
import { OperationCommands } from './operation-commands';
import { OperationFailureCallout } from './operation-failure-callout';
import { KeptOperation } from './kept-operation';
import { OperationFields } from './operation-fields';
import { PollBar } from './poll-bar';
import { useStatusAnnouncement } from './use-status-announcement';

/** How old the cached newest page may be and still speak for the project's running work. */
const bannerFreshnessMs = (intervalMs: number) => Math.max(2 * intervalMs, 10_000);

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
    delay: (state) => nextRequestDelay(state, nextPollDelay(state.data, intervalMs)),
  });
  // Archive first where it has the project (api/archive.ts, loadOperationArchiveFirst): one the API no longer lists
  // is shown from the archive and the API is not asked (it would answer 404); meanwhile the page says it is loading.
  const coverage = useQuery(archiveQueries.projects());
  const covered = isCovered(coverage.data, projectId);
  const coverageKnown = coverage.isSuccess || coverage.isError;
  const [missing, setMissing] = useState(false);
  const archived = useQuery({ ...archiveQueries.operation(projectId, operationId), enabled: covered || missing });
  const keptOnly = archived.data && isKeptByArchive(archived.data) ? archived.data : undefined;
  const archiveAnswered = !covered || archived.isSuccess || archived.isError;
  const detail = useQuery({ ...detailOptions, refetchInterval, enabled: coverageKnown && archiveAnswered && !keptOnly });
  const operation = detail.data;
  const detailFailure = loadFailure(detail, detailOptions.queryKey);
  // A 404 from the API may be an operation the platform pruned that another person's kept key holds: the archive is asked then.
  const notFound = isApiError(detail.error) && detail.error.kind === 'http' && detail.error.status === 404;
  if (notFound !== missing) setMissing(notFound);
  const kept = operation ? undefined : (keptOnly ?? (missing ? (archived.data ?? undefined) : undefined));
  const announcement = useStatusAnnouncement(operation);
  const usual = useUsualDurations(projectId, operation !== undefined && canRunLong(operation));
  const now = useNow(1_000);
  // The project's newest page as last polled (by the watch list or the history): read, never fetched here.
  const newest = useQuery({ ...operationQueries.latest(projectId), enabled: false });
  const newestFresh = newest.data && now - newest.dataUpdatedAt < bannerFreshnessMs(intervalMs) ? [newest.data] : [];
  const inProject = mergeCopies(operation ? [operation] : [], ...newestFresh.map((page) => page.operations));

  const projectName = project.data?.name ?? projectId;
  const startedBy = useStarters([operationId])[operationId]?.name;
  const shown = operation ?? kept;
  const branch = shown?.branch_id ? branches.data?.find((b) => b.id === shown.branch_id) : undefined;
  const compute = shown?.endpoint_id ? endpoints.data?.find((e) => e.id === shown.endpoint_id) : undefined;
  const pollDelay = operation ? nextPollDelay(operation, intervalMs, now) : false;
  const reconnecting = detail.failureCount > 0 || detail.isRefetchError;
  const lastFailure = detail.failureReason ?? detail.error;
  const lastChecked = Math.max(detail.dataUpdatedAt, detail.errorUpdatedAt, isApiError(lastFailure) ? lastFailure.failedAt : 0);
  // The very function that schedules the request (retry or poll) tells when it goes out.
  const nextCheck = nextRequest(
    { failureCount: detail.failureCount, failureReason: detail.failureReason, fetching: detail.fetchStatus !== 'idle', answeredAt: detail.dataUpdatedAt },
    pollDelay,
  );
  const nextCheckIn = pollDelay === false || nextCheck === null ? null : secondsLeft(nextCheck, now);
  // A failing check of a shown operation is said here, with its countdown: the page-wide notices keep quiet.
  useShownInline(operation && reconnecting ? hashKey(detailOptions.queryKey) : undefined);

  return (
    <section>
      <p className="breadcrumbs">
        <Link to={paths.home()}>Projects</Link> <span aria-hidden="true">/</span> <Link to={paths.project(projectId)}>{projectName}</Link>{' '}
        <span aria-hidden="true">/</span> Operation
      </p>
      <h1 tabIndex={-1}>{shown ? humanizeAction(shown.action) : 'Operation'}</h1>
      {startedBy && (
        <p>
          <StartedBy name={startedBy} />
        </p>
      )}
      <p className="visually-hidden" aria-live="polite" aria-atomic="true">
        {announcement}
      </p>
      <BusyBanner operations={inProject} branchNames={new Map(branches.data?.map((b) => [b.id, b.name]))} now={now} />

      {!operation && kept ? (
        <KeptOperation operation={kept} projectId={projectId} projectName={projectName} branch={branch} compute={compute} now={now} />
      ) : !operation && detailFailure && !(missing && archived.isFetching) ? (
        <LoadFailureCallout title="Could not load this operation." failure={detailFailure} onRetry={() => void detail.refetch()} fetching={detail.isFetching}>
          {isApiError(detailFailure.error) && detailFailure.error.status === 404 && (
            <p>
              It may have been pruned (the platform keeps about 6 months), or it belongs to a project this key cannot see.{' '}
              <Link to={paths.project(projectId)}>Back to the project&apos;s operations</Link>
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
            {longerThanUsual(operation, usual, now) && (
              <dd>
                <LongerThanUsual operation={operation} usual={usual} />
              </dd>
            )}
          </dl>

          <PollBar
            operation={operation}
            pollDelay={pollDelay}
            visible={visible}
            lastChecked={lastChecked}
            nextCheckIn={nextCheckIn}
            now={now}
            checking={detail.isFetching}
            onCheckNow={() => void detail.refetch()}
            intervalMs={intervalMs}
            onIntervalChange={setIntervalMs}
            projectName={project.data?.name}
            branchName={branch?.name}
            computeName={compute?.name ?? compute?.id}
          />
          {reconnecting && (
            <p className="callout callout--warning" role="status">
              <span aria-hidden="true">⚠ </span>
              Reconnecting… the last check failed ({describeError(detail.error ?? detail.failureReason).message}).{' '}
              {nextCheckIn === null || nextCheck === null ? '' : `${retryCountdown(nextCheck, now, true)}. `}The details below are from{' '}
              {secondsSince(detail.dataUpdatedAt, now)} s ago.
            </p>
          )}

          {mayBeRetried(operation.status) && <OperationFailureCallout operation={operation} pollDelay={pollDelay} />}

          <OperationFields operation={operation} projectId={projectId} projectName={projectName} branch={branch} compute={compute} now={now} />
          <OperationCommands projectId={projectId} operationId={operation.id} />
        </>
      )}
    </section>
  );
}
