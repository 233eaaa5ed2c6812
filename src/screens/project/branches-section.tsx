import { RefusalNote, refusedProps } from '../../features/session/refusal-note';
import { useTeamRole } from '../../features/session/use-team-role';
import type { UseQueryResult } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { branchQueries } from '../../api/branches';
import { endpointQueries, useEndpointAction } from '../../api/endpoints';
import { loadFailure } from '../../api/load-failure';
import { mergeCopies } from '../../api/operations';
import type { Branch, Endpoint, Operation } from '../../api/schemas';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableSkeleton } from '../../components/table-skeleton';
import { useWatchState, useWatchStore } from '../../features/watch/watch-context';
import { useShownInline } from '../../lib/inline-faults';
import { countOperations, type ActionContext } from './action-context';
import { BranchesTable, BRANCH_COLUMNS, computeNameOf, type BranchRefusals } from './branches-table';
import { ComputeActionDialog } from './compute-action-dialog';
import { CreateBranchDialog } from './create-branch-dialog';
import { DeleteBranchDialog } from './delete-branch-dialog';
import { RequestProgress } from './request-progress';
import { useAbortSignal } from './use-abort-signal';

type OpenDialog = { kind: 'create' } | { kind: 'delete'; branch: Branch } | { kind: 'suspend' | 'restart'; endpoint: Endpoint };

interface BranchesSectionProps {
  projectId: string;
  projectName: string | undefined;
  branches: UseQueryResult<Branch[]>;
  endpoints: UseQueryResult<Endpoint[]>;
  /** The project's unfinished operations, as last fetched. */
  blockers: readonly Operation[];
  /** The project's operations as loaded (newest first): with the watched ones, what a compute's state is derived from. */
  operations: readonly Operation[];
  now: number;
}

interface Done {
  text: string;
  /** The operations the request started. */
  ids: readonly string[];
  /** Some of them were seen unfinished: once none is, they have ended. */
  seen: boolean;
}
const NOTHING_DONE: Done = { text: '', ids: [], seen: false };

const merged = (base: ReadonlyMap<string, string>, extra: ReadonlyMap<string, string> | undefined) => (extra ? new Map([...base, ...extra]) : base);

/** The project's branches and computes, with the changes a person can start from here. */
export function BranchesSection({ projectId, projectName, branches, endpoints, blockers, operations, now }: BranchesSectionProps) {
  const watch = useWatchStore();
  // Team sign-in: what the person's role does not reach is disabled, and one note under the heading says why
  // (docs/team.md): each control names its reason there as its description.
  const { refusal } = useTeamRole();
  const refused: BranchRefusals = {
    create: refusal('operator', 'create branches'),
    start: refusal('operator', 'start computes'),
    suspend: refusal('operator', 'suspend computes'),
    restart: refusal('operator', 'restart computes'),
    delete: refusal('operator', 'delete branches'),
  };
  const refusalNoteId = useId();
  // A change's operations are known from its answer (the watch list holds them at once, then their newest copies),
  // before the history's next read: the compute's state reads them together, so a restart never starts as "Starting…".
  const watched = useWatchState(watch);
  const known = useMemo(
    () =>
      mergeCopies(
        operations,
        watched.groups.flatMap((group) => group.entries.map((entry) => entry.operation).filter((op) => op.project_id === projectId)),
      ),
    [operations, watched, projectId],
  );
  const headingId = useId();
  const [dialog, setDialog] = useState<OpenDialog | null>(null);
  const [done, setDoneState] = useState<Done>(NOTHING_DONE);
  const setDone = (text: string, started: readonly Operation[] = []) => setDoneState({ text, ids: started.map((op) => op.id), seen: false });
  // The line says what the request started until that has ended: seen among the unfinished operations, then gone from them.
  const inFlightIds = new Set(blockers.map((op) => op.id));
  const doneRunning = done.ids.filter((id) => inFlightIds.has(id)).length;
  if (doneRunning > 0 && !done.seen) setDoneState({ ...done, seen: true });
  const doneText = done.seen && doneRunning === 0 ? `${done.text.replace(/\.$/, '')}; ${done.ids.length === 1 ? 'it has' : 'all have'} ended.` : done.text;
  // A Start keeps trying if the person leaves the page: its operations still land in the watch list.
  const startSignal = useAbortSignal({ abortOnUnmount: false });

  const branchNames = useMemo(() => new Map(branches.data?.map((b) => [b.id, b.name])), [branches.data]);
  const computeNames = useMemo(() => new Map(endpoints.data?.map((e) => [e.id, computeNameOf(e)])), [endpoints.data]);

  const watchStarted: ActionContext['watchStarted'] = (title, operations, names) =>
    watch.watch({
      title,
      projectName,
      operations,
      branchNames: merged(branchNames, names?.branches),
      computeNames: merged(computeNames, names?.computes),
    });
  const context: ActionContext = {
    projectId,
    blockers,
    watchStarted,
    onDone: (message, started) => {
      setDialog(null);
      setDone(message, started);
    },
  };

  const start = useEndpointAction(projectId, {
    onStarted: (data, { endpointId }) => watchStarted(`Start compute ${computeNames.get(endpointId) ?? endpointId}`, data.operations),
  });
  const startCompute = (endpoint: Endpoint) => {
    setDone('');
    const title = `Start compute ${computeNameOf(endpoint)}`;
    start.mutate(
      { endpointId: endpoint.id, action: 'start', signal: startSignal.next() },
      {
        onSuccess: (data) =>
          setDone(data.operations.length ? `${title}: ${countOperations(data.operations.length)} started.` : `${title}: already running.`, data.operations),
      },
    );
  };
  const retryStart = () => {
    const endpoint = endpoints.data?.find((e) => e.id === start.variables?.endpointId);
    if (endpoint) startCompute(endpoint);
  };
  const open = (next: OpenDialog) => {
    setDone('');
    setDialog(next);
  };

  const branchesFailure = loadFailure(branches, branchQueries.list(projectId).queryKey);
  const endpointsFailure = loadFailure(endpoints, endpointQueries.list(projectId).queryKey);
  const failed = branchesFailure ? { query: branches, failure: branchesFailure } : endpointsFailure ? { query: endpoints, failure: endpointsFailure } : null;
  // Both lists failing the same way make one callout here, and no notice for either.
  useShownInline(failed ? endpointsFailure?.id : undefined);

  return (
    <section className="branches" aria-labelledby={headingId}>
      <div className="toolbar">
        <h2 id={headingId}>Branches and computes</h2>
        <button
          type="button"
          onClick={() => open({ kind: 'create' })}
          disabled={!branches.data || refused.create !== undefined}
          {...refusedProps(refusalNoteId, refused.create, 'primary')}
        >
          Create branch
        </button>
      </div>
      <RefusalNote id={refusalNoteId} reasons={Object.values(refused)} />
      <RequestProgress
        projectId={projectId}
        request={start}
        pendingLabel="Starting the compute…"
        failedTitle="Could not start the compute."
        doneTitle="The compute was started, but the details could not be read."
        blockers={blockers}
        onRetry={retryStart}
        onStop={() => {
          startSignal.abort();
          start.reset();
        }}
      />
      <p className="branches__done muted" role="status">
        {doneText}
      </p>

      {branches.data && endpoints.data ? (
        <BranchesTable
          branches={branches.data}
          endpoints={endpoints.data}
          busy={start.isPending}
          operations={known}
          now={now}
          onStart={startCompute}
          onSuspend={(endpoint) => open({ kind: 'suspend', endpoint })}
          onRestart={(endpoint) => open({ kind: 'restart', endpoint })}
          onDelete={(branch) => open({ kind: 'delete', branch })}
          refused={refused}
          refusalNoteId={refusalNoteId}
        />
      ) : failed ? (
        <LoadFailureCallout
          title="Could not load the branches and computes."
          failure={failed.failure}
          onRetry={() => void failed.query.refetch()}
          fetching={failed.query.isFetching}
        />
      ) : (
        <TableSkeleton columns={BRANCH_COLUMNS} rows={2} label="Loading branches and computes…" />
      )}

      {dialog?.kind === 'create' && branches.data && <CreateBranchDialog context={context} branches={branches.data} onCancel={() => setDialog(null)} />}
      {dialog?.kind === 'delete' && (
        <DeleteBranchDialog
          context={context}
          branch={dialog.branch}
          computes={endpoints.data?.filter((e) => e.branch_id === dialog.branch.id) ?? []}
          onCancel={() => setDialog(null)}
        />
      )}
      {(dialog?.kind === 'suspend' || dialog?.kind === 'restart') && (
        <ComputeActionDialog
          context={context}
          action={dialog.kind}
          endpoint={dialog.endpoint}
          computeName={computeNameOf(dialog.endpoint)}
          branchName={branchNames.get(dialog.endpoint.branch_id) ?? dialog.endpoint.branch_id}
          onCancel={() => setDialog(null)}
        />
      )}
    </section>
  );
}
