import { hashKey, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import { describeError } from '../../api/api-error';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';
import { loadFailure } from '../../api/load-failure';
import { LOCKED_RETRY_BASE_MS } from '../../api/locked-retry';
import { operationQueries } from '../../api/operations';
import { projectQueries } from '../../api/projects';
import { BusyBanner } from '../../components/busy-banner';
import { ErrorCallout } from '../../components/error-callout';
import { IntervalSelect } from '../../components/interval-select';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableSkeleton } from '../../components/table-skeleton';
import { paths } from '../../config/paths';
import { useShownInline } from '../../lib/inline-faults';
import { blocksChanges } from '../../lib/operation-status';
import { useNow } from '../../lib/use-now';
import { usePollInterval } from '../../lib/use-poll-interval';
import { BranchesSection } from './branches-section';
import { ExportButtons } from './export-buttons';
import { OPERATION_COLUMNS, OperationsTable } from './operations-table';
import type { OperationsView } from './operations-view';
import { useOperationHistory } from './use-operation-history';

export function ProjectScreen() {
  const { projectId = '' } = useParams();
  const [intervalMs, setIntervalMs] = usePollInterval();
  const projectOptions = projectQueries.detail(projectId);
  const project = useQuery(projectOptions);
  const projectFailure = loadFailure(project, projectOptions.queryKey);
  useShownInline(projectFailure?.id);
  const branches = useQuery(branchQueries.list(projectId));
  const endpoints = useQuery(endpointQueries.list(projectId));
  const now = useNow(30_000);
  const { history, operations, isLive, reconnecting } = useOperationHistory(projectId, intervalMs, now);
  const historyKey = operationQueries.history(projectId).queryKey;
  const historyFailure = loadFailure(history, historyKey);

  const branchNames = useMemo(() => new Map(branches.data?.map((b) => [b.id, b.name])), [branches.data]);
  const computeNames = useMemo(
    () => new Map(endpoints.data?.map((e) => [e.id, e.name ?? e.id])),
    [endpoints.data],
  );
  const title = project.data?.name ?? projectId;
  const view: OperationsView = { projectId, projectName: project.data?.name, operations, branchNames, computeNames };
  const blockers = useMemo(() => operations.filter((op) => blocksChanges(op, now)), [operations, now]);

  return (
    <section>
      <p className="breadcrumbs">
        <Link to={paths.home()}>Projects</Link> <span aria-hidden="true">/</span> {title}
      </p>
      <h1 tabIndex={-1}>{title}</h1>
      {projectFailure && <p className="muted">Project details unavailable: {projectFailure.message}</p>}
      <BusyBanner operations={blockers} branchNames={branchNames} now={now} />
      <BranchesSection
        projectId={projectId}
        projectName={project.data?.name}
        branches={branches}
        endpoints={endpoints}
        blockers={blockers}
        retryBaseMs={Math.min(intervalMs, LOCKED_RETRY_BASE_MS)}
      />
      <div className="toolbar">
        <h2>Operations</h2>
        <IntervalSelect value={intervalMs} onChange={setIntervalMs} />
        <ExportButtons {...view} />
        <span className="muted" role="status">
          {isLive ? (reconnecting ? 'Reconnecting… showing the last data received.' : 'Live: operations in progress are refreshed.') : ''}
        </span>
      </div>

      {historyFailure ? (
        <LoadFailureCallout
          title="Could not load the operations."
          failure={historyFailure}
          onRetry={() => void history.refetch()}
          fetching={history.isFetching}
        />
      ) : history.isPending ? (
        <TableSkeleton columns={OPERATION_COLUMNS} label="Loading operations…" />
      ) : operations.length === 0 ? (
        <p className="empty">No operations yet. Operations appear here when you or the platform change something in this project.</p>
      ) : (
        <>
          <OperationsTable {...view} now={now} />
          <div className="table-footer">
            {history.hasNextPage ? (
              <button
                type="button"
                onClick={() => void history.fetchNextPage()}
                disabled={history.isFetchingNextPage}
                aria-describedby="ops-count"
              >
                Load more
              </button>
            ) : (
              <p className="muted">End of history. The platform may prune operations older than 6 months.</p>
            )}
            <span id="ops-count" className="muted" role="status">
              {history.isFetchingNextPage ? 'Loading more operations…' : `${operations.length} operations loaded`}
            </span>
          </div>
          {history.isFetchNextPageError && (
            <ErrorCallout
              title="Could not load more operations."
              {...describeError(history.error)}
              faultId={hashKey(historyKey)}
              onRetry={() => void history.fetchNextPage()}
            />
          )}
        </>
      )}
    </section>
  );
}
