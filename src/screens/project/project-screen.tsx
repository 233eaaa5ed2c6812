import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import { isApiError } from '../../api/api-error';
import { branchQueries } from '../../api/branches';
import { endpointQueries } from '../../api/endpoints';
import { loadFailure } from '../../api/load-failure';
import { projectQueries } from '../../api/projects';
import { ProjectNotFound } from '../../components/project-not-found';
import { BusyBanner } from '../../components/busy-banner';
import { CopyButton } from '../../components/copy-button';
import { paths } from '../../config/paths';
import { useShownInline } from '../../lib/inline-faults';
import { blocksChanges } from '../../model/operation-status';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useNow } from '../../lib/use-now';
import { usePollInterval } from '../../api/use-poll-interval';
import { BranchesSection } from './branches-section';
import { HistorySection } from './history-section';
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
  const { history, operations, isLive, refreshMs, reconnecting } = useOperationHistory(projectId, intervalMs, now);

  const branchOptions = useMemo(() => branches.data?.map((b) => ({ id: b.id, name: b.name })) ?? [], [branches.data]);
  const computeOptions = useMemo(() => endpoints.data?.map((e) => ({ id: e.id, name: e.name ?? e.id })) ?? [], [endpoints.data]);
  const branchNames = useMemo(() => new Map(branchOptions.map((b) => [b.id, b.name])), [branchOptions]);
  const computeNames = useMemo(() => new Map(computeOptions.map((c) => [c.id, c.name])), [computeOptions]);
  const title = project.data?.name ?? projectId;
  const blockers = useMemo(() => operations.filter((op) => blocksChanges(op, now)), [operations, now]);
  const missing = isApiError(project.error) && project.error.kind === 'http' && project.error.status === 404;
  useDocumentTitle(missing ? 'Project not found' : title, missing ? undefined : 'Operations');

  if (missing) return <ProjectNotFound projectId={projectId} back={{ to: paths.home(), label: 'Back to your projects' }} />;

  return (
    <section>
      <p className="breadcrumbs">
        <Link to={paths.home()}>Projects</Link> <span aria-hidden="true">/</span> {title}
      </p>
      <h1 tabIndex={-1}>{title}</h1>
      <p className="muted small">
        Project id <code>{projectId}</code> <CopyButton label="Copy project id" text={projectId} />
        <span aria-hidden="true"> · </span>
        <Link to={paths.projectInsights(projectId)}>Insights of this project</Link>
      </p>
      {projectFailure && <p className="muted">Project details unavailable: {projectFailure.message}</p>}
      <BranchesSection
        projectId={projectId}
        projectName={project.data?.name}
        branches={branches}
        endpoints={endpoints}
        blockers={blockers}
        operations={operations}
        now={now}
      />
      {/* Below the branches, so their rows (and their buttons) stay put when work starts or the history arrives. */}
      <BusyBanner operations={blockers} branchNames={branchNames} now={now} />
      <HistorySection
        projectId={projectId}
        projectName={project.data?.name}
        projectCreatedAt={project.data?.created_at}
        history={history}
        operations={operations}
        isLive={isLive}
        refreshMs={refreshMs}
        reconnecting={reconnecting}
        intervalMs={intervalMs}
        onIntervalChange={setIntervalMs}
        branchOptions={branchOptions}
        computeOptions={computeOptions}
        branchNames={branchNames}
        computeNames={computeNames}
        now={now}
      />
    </section>
  );
}
