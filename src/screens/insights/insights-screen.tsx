import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import './insights.css';
import { insightsCsvHref, insightsQueries, insightsRefetchInterval } from '../../api/insights';
import { INSIGHTS_PATH } from '../../api/insights-schemas';
import { loadFailure } from '../../api/load-failure';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { LongName } from '../../components/long-name';
import { TableSkeleton } from '../../components/table-skeleton';
import { paths } from '../../config/paths';
import { WINDOW_NAMES } from '../../model/insight-figures';
import { useDocumentTitle } from '../../lib/use-document-title';
import { usePollInterval } from '../../api/use-poll-interval';
import { FIGURE_COLUMNS, InsightsTable } from './insights-table';
import { KeepHistoryOffer } from './keep-history-offer';
import { useInsightWindow, WindowChoice } from './window-choice';

/** What the screen reads first (app/first-screen.ts starts it with the screen's code). */
export const firstQuery = insightsQueries.overview;

/**
 * Insights across the archive (`/insights`): a row per archived project the session's key can read, each
 * project's name linking to its own insights. Rendered on the server with its figures, so it reads without
 * scripts.
 */
export function InsightsScreen() {
  useDocumentTitle('Insights');
  const insightWindow = useInsightWindow();
  const [intervalMs] = usePollInterval();
  const options = insightsQueries.overview(insightWindow);
  const overview = useQuery({ ...options, refetchInterval: insightsRefetchInterval(intervalMs) });
  const failure = loadFailure(overview, options.queryKey);
  const data = overview.data;

  return (
    <section className="insights">
      <h1 tabIndex={-1}>Insights</h1>
      <p className="muted">
        How the operations of each archived project went over {WINDOW_NAMES[insightWindow]}, counted from the history archive. What each figure means: runs are
        operations created in the window; failed are those with status failed or error; the failure rate leaves out cancelled and skipped ones; p50 and p95 are
        finished operations’ durations.
      </p>
      <WindowChoice current={insightWindow} range={data?.range.current} hrefOf={(w) => paths.insights(w)} />
      {failure ? (
        <LoadFailureCallout title="Could not load the insights." failure={failure} onRetry={() => void overview.refetch()} fetching={overview.isFetching} />
      ) : !data ? (
        <TableSkeleton columns={['Project', ...FIGURE_COLUMNS]} rows={4} label="Loading the insights…" />
      ) : data.projects.length === 0 ? (
        <KeepHistoryOffer ownKeyKept={data.ownKeyKept} what="No project this API key can read is in the history archive yet, so there is nothing to count." />
      ) : (
        <>
          <InsightsTable
            caption="Operations per project"
            keyHeader="Project"
            rows={data.projects}
            range={data.range}
            rowName={(row) => (
              <Link to={paths.projectInsights(row.key, insightWindow)}>
                <LongName name={row.name} />
              </Link>
            )}
            historyOf={(row) => ({ projectId: row.key })}
          />
          <p className="insights__downloads">
            <a href={insightsCsvHref(INSIGHTS_PATH, insightWindow)} download>
              Download this table as CSV
            </a>
          </p>
        </>
      )}
    </section>
  );
}
