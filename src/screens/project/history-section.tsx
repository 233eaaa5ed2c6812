import { hashKey, type UseInfiniteQueryResult, type InfiniteData } from '@tanstack/react-query';
import { Suspense, useId, useMemo, useRef } from 'react';
import { describeError } from '../../api/api-error';
import { oldestLoaded } from '../../api/history-walk';
import { loadFailure, loadMoreFailure } from '../../api/load-failure';
import { operationQueries, type HistoryPage } from '../../api/operations';
import type { Operation } from '../../api/schemas';
import { CopyButton } from '../../components/copy-button';
import { ErrorCallout } from '../../components/error-callout';
import { IntervalSelect } from '../../components/interval-select';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { ShortcutsDialog } from '../../components/shortcuts-dialog';
import { TableSkeleton } from '../../components/table-skeleton';
import { apiBaseForCommands } from '../../config/api-target';
import { ExportButtons } from '../../features/history/export/export-buttons';
import { ExportMatchesButtons } from '../../features/history/export/export-matches-buttons';
import { filterOperations, isFiltered } from '../../model/filters';
import { useLive } from '../../lib/poll-sharing/use-shared-polls';
import { HistoryFilterBar } from '../../features/history/filters/history-filter-bar';
import { listCurl, listNeonctl, NEONCTL_COVERS } from '../../features/history/commands/list-commands';
import { useFiltersInAddress } from '../../features/history/filters/use-filters-in-address';
import { HISTORY_SHORTCUTS, useHistoryShortcuts } from '../../features/history/shortcuts/use-history-shortcuts';
import { useHistoryWalk } from '../../features/history/walk/use-history-walk';
import { useMatchesExport } from '../../features/history/export/use-matches-export';
import { UsualDurationsPanel } from '../../features/history/usual-durations/usual-durations-panel';
import { WalkProgress } from '../../features/history/walk/walk-progress';
import { everyInterval, formatDuration } from '../../lib/format';
import { lazyComponent } from '../../lib/code-module';
import { usualDurations } from '../../model/usual-durations';
import { useTakenOver } from '../../lib/use-taken-over';
import { ArchiveStatus } from './archive-status';
import { OPERATION_COLUMNS, OperationsTable } from './operations-table';
import { projectTimeline } from './project-timeline-module';
import { useArchivedMatches } from './use-archived-matches';
import type { OperationsView } from './operations-view';

const ProjectTimeline = lazyComponent(projectTimeline);

interface HistorySectionProps extends Omit<OperationsView, 'operations'> {
  /** When the project was created: where a search through its history ends at the latest. */
  projectCreatedAt: string | undefined;
  history: UseInfiniteQueryResult<InfiniteData<HistoryPage>>;
  /** Every loaded operation, newest first. */
  operations: readonly Operation[];
  isLive: boolean;
  /** How often the newest operations are refreshed now (api/retry-policy.ts, historyRefreshDelay). */
  refreshMs: number;
  reconnecting: boolean;
  intervalMs: number;
  onIntervalChange: (ms: number) => void;
  branchOptions: readonly { id: string; name: string }[];
  computeOptions: readonly { id: string; name: string }[];
  now: number;
}

/**
 * A project's operation history: the filters (in the address), the search through older pages they
 * start, the timeline, usual durations, exports and copyable commands, and the table of what matches.
 */
export function HistorySection(props: HistorySectionProps) {
  const { projectId, projectName, projectCreatedAt, history, operations, branchNames, computeNames, now } = props;
  const [filters, setFilters] = useFiltersInAddress();
  const filtered = isFiltered(filters);
  const matches = useArchivedMatches(projectId, filters, operations, props.intervalMs);
  const archived = matches.source === 'archive';
  const walkedMatches = useMemo(() => filterOperations(operations, filters), [operations, filters]);
  const shown = archived ? matches.operations : walkedMatches;
  // The archive's answer is on its way and nothing loaded matches yet: "finding", never "no matches". A page read
  // without script (and the server's HTML the browser takes over) keeps its verdict over the loaded operations.
  const takenOver = useTakenOver();
  const finding = takenOver && matches.source === 'asking' && walkedMatches.length === 0;
  const usual = useMemo(() => usualDurations(operations), [operations]);
  const seenActions = useMemo(() => new Set(operations.map((op) => op.action)), [operations]);
  const names = useMemo(() => ({ branchNames, computeNames }), [branchNames, computeNames]);
  const exporter = useMatchesExport(projectId, filters, names, archived ? matches.params : null);
  // The API is walked only when the archive does not answer these filters (or to export the whole history).
  const walk = useHistoryWalk(projectId, {
    wanted: matches.source === 'api' || (matches.source === 'off' && exporter.pending !== null),
    ready: history.isSuccess,
    from: filters.from,
    search: JSON.stringify(filters),
    onEnded: exporter.onWalkEnded,
  });
  const searchRef = useRef<HTMLInputElement>(null);
  const tableHolder = useRef<HTMLDivElement>(null);
  const shortcuts = useHistoryShortcuts({ searchRef, tableHolder });

  const historyKey = operationQueries.history(projectId).queryKey;
  const historyFailure = loadFailure(history, historyKey);
  const moreFailure = loadMoreFailure(history, historyKey);
  const newest = operations[0] ? Date.parse(operations[0].created_at) : undefined;
  const oldest = oldestLoaded(history.data);
  const searchStart = Math.max(filters.from ? Date.parse(filters.from) : -Infinity, projectCreatedAt ? Date.parse(projectCreatedAt) : -Infinity);
  const walking = walk.status.phase === 'walking';
  const headingId = useId();
  const streaming = useLive();
  const noMatches = archived
    ? 'No operation in the archive’s record of this project matches these filters.'
    : walking
      ? 'No matches yet: searching older operations…'
      : walk.status.phase === 'done'
        ? 'No operation in the history searched matches these filters.'
        : 'No loaded operation matches these filters.';

  return (
    <section className="history" aria-labelledby={headingId}>
      <div className="toolbar">
        <h2 id={headingId}>Operations</h2>
        <IntervalSelect value={props.intervalMs} onChange={props.onIntervalChange} label="Refresh operations in progress every" />
        <span className="muted" role="status">
          {/* Which source is in use (docs/live.md): the stream ("Live"), or the checks and their pace. */}
          {props.isLive
            ? props.reconnecting && !streaming
              ? 'Reconnecting… showing the last data received.'
              : streaming
                ? 'Live: operations in progress are refreshed.'
                : `Checking every ${everyInterval(props.refreshMs)}: operations in progress are refreshed.`
            : `Nothing in progress: checks for new operations every ${formatDuration(props.refreshMs)}.`}
        </span>
      </div>
      <HistoryFilterBar
        filters={filters}
        onChange={setFilters}
        branches={props.branchOptions}
        computes={props.computeOptions}
        seenActions={seenActions}
        searchRef={searchRef}
      />
      <div className="toolbar history__actions">
        <ExportButtons projectId={projectId} projectName={projectName} operations={shown} branchNames={branchNames} computeNames={computeNames} />
        <ExportMatchesButtons exporter={exporter} disabled={!history.isSuccess} />
        <span role="group" aria-label="Copy this list as a command" className="history__commands">
          <CopyButton label="Copy as curl" text={() => listCurl(apiBaseForCommands(), projectId, filters)} />
          <CopyButton label="Copy as neonctl" text={() => listNeonctl(apiBaseForCommands(), projectId, filters)} />
          <span className="muted small">{NEONCTL_COVERS}</span>
        </span>
        <button type="button" className="history__shortcuts" onClick={shortcuts.openHelp} aria-keyshortcuts="?">
          Keyboard shortcuts
        </button>
      </div>
      <ArchiveStatus matches={matches} now={now} />
      <WalkProgress
        walk={walk}
        searched={operations.length}
        matches={shown.length}
        newest={newest}
        oldest={oldest ? Date.parse(oldest.created_at) : undefined}
        start={Number.isFinite(searchStart) ? searchStart : undefined}
      />
      {history.isSuccess && (
        <Suspense fallback={null}>
          <ProjectTimeline
            projectId={projectId}
            filters={filters}
            matches={archived ? matches.operations : undefined}
            pending={finding}
            branchNames={branchNames}
            computeNames={computeNames}
          />
        </Suspense>
      )}
      {history.isSuccess && <UsualDurationsPanel usual={usual} searched={operations.length} />}

      <div ref={tableHolder}>
        {historyFailure ? (
          <LoadFailureCallout
            title="Could not load the operations."
            failure={historyFailure}
            onRetry={() => void history.refetch()}
            fetching={history.isFetching}
          />
        ) : history.isPending ? (
          <TableSkeleton columns={OPERATION_COLUMNS} label="Loading operations…" />
        ) : finding ? (
          <TableSkeleton columns={OPERATION_COLUMNS} label="Finding the matches…" />
        ) : operations.length === 0 && !archived ? (
          <p className="empty">No operations yet. Operations appear here when you or the platform change something in this project.</p>
        ) : shown.length === 0 ? (
          <p className="empty">{noMatches}</p>
        ) : (
          <OperationsTable
            projectId={projectId}
            projectName={projectName}
            operations={shown}
            branchNames={branchNames}
            computeNames={computeNames}
            now={now}
            usual={usual}
          />
        )}
      </div>
      {operations.length > 0 && !historyFailure && !filtered && (
        <>
          <div className="table-footer">
            {history.hasNextPage ? (
              <button type="button" onClick={() => void history.fetchNextPage()} disabled={history.isFetchingNextPage || walking} aria-describedby="ops-count">
                Load more
              </button>
            ) : (
              <p className="muted">End of history. The platform may prune operations older than 6 months.</p>
            )}
            <span id="ops-count" className="muted" role="status">
              {/* While the next page waits for its next try, the callout below says so: not "Loading…" beside it. */}
              {history.isFetchingNextPage && !moreFailure ? 'Loading more operations…' : `${operations.length} operations loaded`}
            </span>
          </div>
          {moreFailure && (
            // Retry sends the page's request now: fetchNextPage cancels the wait for the next try.
            <LoadFailureCallout title="Could not load more operations." failure={moreFailure} onRetry={() => void history.fetchNextPage()} fetching={false} />
          )}
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
      {archived && matches.hasMore && (
        <div className="table-footer">
          <button type="button" onClick={matches.loadMore} disabled={matches.loadingMore}>
            Load more matches from the archive
          </button>
          <span className="muted" role="status">
            {matches.loadingMore ? 'Loading more matches…' : ''}
          </span>
        </div>
      )}
      {shortcuts.helpOpen && <ShortcutsDialog shortcuts={HISTORY_SHORTCUTS} onClose={shortcuts.closeHelp} />}
    </section>
  );
}
