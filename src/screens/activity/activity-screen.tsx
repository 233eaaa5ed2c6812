import { useMemo } from 'react';
import './activity.css';
import { describeError } from '../../api/api-error';
import { ErrorCallout } from '../../components/error-callout';
import { IntervalSelect } from '../../components/interval-select';
import { TableSkeleton } from '../../components/table-skeleton';
import { knownProjects } from '../../api/activity-feed';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useNow } from '../../lib/use-now';
import { ActivityBudget } from './activity-budget';
import { ActivityFilterBar } from './activity-filter-bar';
import { activityRows, oldestCheck } from './activity-rows';
import { ArchiveNote } from './archive-note';
import { withArchive } from './archive-feed';
import { ACTIVITY_COLUMNS, ActivityTable } from './activity-table';
import { useActivityAddress, type ActivityAddress } from './use-activity-address';
import { unknownStatuses } from '../../model/filters';
import { useActivityFeed } from './use-activity-feed';

/**
 * Activity across projects: what is in flight anywhere the key reaches, and what ended lately, in
 * one table that keeps itself current inside a request budget (src/lib/activity-scheduler.ts).
 */
export function ActivityScreen() {
  useDocumentTitle('Activity');
  const { feed, archive, archiveProblem, coversAll, settings, setBudget, setIntervalMs } = useActivityFeed();
  const [address, changeAddress] = useActivityAddress();
  const now = useNow(1_000);
  // Only the archive's data is read here (not when it was fetched), so its polls re-render the view only when it changes.
  // Projects the archive answers for: their names are not read from the API either (the note promises no request).
  const archived = useMemo(() => new Set(archive.data?.projects.map((p) => p.id)), [archive.data]);
  const data = useMemo(() => withArchive(feed.data, archive.data, { answeredAt: now, coversAll }), [feed.data, archive.data, now, coversAll]);
  const projects = useMemo(() => knownProjects(data), [data]);
  const listed = data?.listedAt != null;
  // The address is checked as the history's is: a status that is none, a project this key does not reach (once the
  // list is read), each said in words and left out rather than shown as "Any" or offered as a project.
  const strayStatuses = useMemo(() => unknownStatuses(address.filters.status), [address.filters.status]);
  const strayProject = listed && address.projectId !== undefined && !projects.some((p) => p.id === address.projectId) ? address.projectId : undefined;
  const checkedAddress = useMemo(
    (): ActivityAddress => ({
      ...address,
      filters: strayStatuses.length > 0 ? { ...address.filters, status: address.filters.status.filter((s) => !strayStatuses.includes(s)) } : address.filters,
      projectId: strayProject === undefined ? address.projectId : undefined,
    }),
    [address, strayStatuses, strayProject],
  );
  const view = useMemo(
    () => ({ filters: checkedAddress.filters, projectId: checkedAddress.projectId, endedWithinMs: checkedAddress.endedWithin.ms }),
    [checkedAddress],
  );
  const rows = useMemo(() => activityRows(data, view, now), [data, view, now]);
  const seenActions = useMemo(() => new Set(Object.values(data?.checks ?? {}).flatMap((check) => check.operations.map((op) => op.action))), [data]);
  const problems = data ? Object.values(data.checks).filter((check) => check.problem).length : 0;
  const total = projects.length;
  const unchecked = oldestCheck(data).unchecked;
  const checked = total - unchecked;

  return (
    <section className="activity">
      <h1 tabIndex={-1}>Activity</h1>
      <p className="muted">
        Operations in progress in every project this key reaches, and those that ended in the last {address.endedWithin.label}, newest first.
      </p>
      <div className="toolbar">
        <IntervalSelect value={settings.intervalMs} onChange={setIntervalMs} label="Check busy projects every" />
        <ActivityBudget feed={data} budgetPerMinute={settings.budgetPerMinute} onBudgetChange={setBudget} now={now} />
      </div>
      {address.unknownEnded !== undefined && (
        <p role="status" className="notice">
          “ended={address.unknownEnded}” in the address is not one of the choices (15m, 1h, 6h, 1d): showing the last {address.endedWithin.label}.
        </p>
      )}
      {strayStatuses.length > 0 && (
        <p role="status" className="notice">
          {strayStatuses.map((status) => `“${status}”`).join(', ')} in the address’s status{' '}
          {strayStatuses.length === 1 ? 'is not a status' : 'are not statuses'} operations have:{' '}
          {checkedAddress.filters.status.length > 0 ? 'left out' : 'showing any status'}.
        </p>
      )}
      {strayProject !== undefined && (
        <p role="status" className="notice">
          “project={strayProject}” in the address is not a project this key reaches: showing every project.
        </p>
      )}
      {archiveProblem != null && (
        <p role="status" className="notice">
          The history archive cannot answer ({describeError(archiveProblem).message}): every project is read from the API instead, within the budget.
        </p>
      )}
      <ArchiveNote archive={archive.data} coversAll={coversAll} total={total} />
      <ActivityFilterBar address={checkedAddress} onChange={changeAddress} projects={projects} seenActions={seenActions} />
      {data?.listProblem && <ErrorCallout title="Could not read the list of projects; the console tries again by itself." message={data.listProblem} />}
      {problems > 0 && (
        <p className="muted">
          {problems === 1 ? '1 project' : `${problems} projects`} could not be read at the last check; {problems === 1 ? 'it is' : 'they are'} tried again in
          turn.
        </p>
      )}
      {rows.length > 0 ? (
        <ActivityTable rows={rows} now={now} archived={archived} />
      ) : !listed ? (
        <TableSkeleton columns={ACTIVITY_COLUMNS} rows={4} label="Finding your projects…" />
      ) : checked === 0 && total > 0 ? (
        // Nothing read yet: nothing may be said about what is happening.
        <TableSkeleton columns={ACTIVITY_COLUMNS} rows={4} label={`Checking your ${total} projects…`} />
      ) : (
        <p className="empty">
          Nothing in progress, and nothing ended in the last {address.endedWithin.label}, in the{' '}
          {unchecked > 0 ? `${checked} of ${total} projects checked so far (${unchecked} not checked yet).` : `${total} projects checked.`}
        </p>
      )}
    </section>
  );
}
