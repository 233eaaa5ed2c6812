import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import './insights.css';
import { isApiError } from '../../api/api-error';
import { insightsCsvHref, insightsQueries, insightsRefetchInterval } from '../../api/insights';
import { projectInsightsPath } from '../../api/insights-schemas';
import { loadFailure } from '../../api/load-failure';
import { ProjectNotFound } from '../../components/project-not-found';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableSkeleton } from '../../components/table-skeleton';
import { paths } from '../../config/paths';
import { WINDOW_NAMES } from '../../model/insight-figures';
import { humanizeAction } from '../../lib/format';
import { useDocumentTitle } from '../../lib/use-document-title';
import { usePollInterval } from '../../api/use-poll-interval';
import { chartBuckets } from './chart-series';
import { ChartTable } from './chart-table';
import { FIGURE_COLUMNS, InsightsTable } from './insights-table';
import { KeepHistoryOffer } from './keep-history-offer';
import { StatusChart } from './status-chart';
import { useInsightWindow, WindowChoice } from './window-choice';

/** What the screen reads first (app/first-screen.ts starts it with the screen's code). */
export const firstQuery = insightsQueries.project;

/**
 * One project's insights (`/projects/:projectId/insights`): a row per action, and its operations per day (per
 * hour over 24 hours) by status, as a chart whose bars link to each day's history and as a table. Rendered on
 * the server with its figures, chart included, so it reads without scripts.
 */
export function ProjectInsightsScreen() {
  const { projectId = '' } = useParams();
  const insightWindow = useInsightWindow();
  const [intervalMs] = usePollInterval();
  const options = insightsQueries.project(projectId, insightWindow);
  const insights = useQuery({ ...options, refetchInterval: insightsRefetchInterval(intervalMs) });
  const failure = loadFailure(insights, options.queryKey);
  const data = insights.data;
  const name = data?.project.name ?? projectId;
  const missing = isApiError(insights.error) && insights.error.kind === 'http' && (insights.error.status === 404 || insights.error.status === 403);
  useDocumentTitle(missing ? 'Project not found' : 'Insights', missing ? undefined : name);
  const buckets = useMemo(() => (data ? chartBuckets(data.buckets, data.bucket) : []), [data]);

  if (missing) return <ProjectNotFound projectId={projectId} back={{ to: paths.insights(insightWindow), label: 'Back to the insights' }} />;

  return (
    <section className="insights">
      <p className="breadcrumbs">
        <Link to={paths.insights(insightWindow)}>Insights</Link> <span aria-hidden="true">/</span> <Link to={paths.project(projectId)}>{name}</Link>
      </p>
      <h1 tabIndex={-1}>Insights</h1>
      <p>
        How the operations of <strong>{name}</strong> went over {WINDOW_NAMES[insightWindow]}, per action, counted from the history archive.
      </p>
      <WindowChoice current={insightWindow} range={data?.range.current} hrefOf={(w) => paths.projectInsights(projectId, w)} />
      {failure ? (
        <LoadFailureCallout title="Could not load the insights." failure={failure} onRetry={() => void insights.refetch()} fetching={insights.isFetching} />
      ) : !data ? (
        <TableSkeleton columns={['Action', ...FIGURE_COLUMNS]} rows={4} label="Loading the insights…" />
      ) : !data.archive ? (
        <KeepHistoryOffer ownKeyKept={data.ownKeyKept} what={`${name} is not in the history archive: no kept key reads it, so there is nothing to count.`} />
      ) : (
        <>
          {!data.archive.backfilled && (
            <p className="callout" role="status">
              The archive is still reading this project’s whole history: older operations may be missing from these figures until it has.
            </p>
          )}
          {data.actions.length === 0 ? (
            <p className="empty">No operation of this project was created in {WINDOW_NAMES[insightWindow]} or the window before it.</p>
          ) : (
            <InsightsTable
              caption="Operations per action"
              keyHeader="Action"
              rows={data.actions}
              range={data.range}
              rowName={(row) => humanizeAction(row.key)}
              historyOf={(row) => ({ projectId, action: row.key })}
            />
          )}
          <p className="insights__downloads">
            <a href={insightsCsvHref(projectInsightsPath(projectId), insightWindow)} download>
              Download this table as CSV
            </a>
          </p>
          <h2>Operations per {data.bucket} by status</h2>
          <StatusChart projectId={projectId} range={data.range} unit={data.bucket} buckets={buckets} />
          <ChartTable projectId={projectId} unit={data.bucket} buckets={buckets} />
        </>
      )}
    </section>
  );
}
