import { useDeleteBranch } from '../../api/branches';
import type { Branch, Endpoint } from '../../api/schemas';
import { countOperations, type ActionContext } from './action-context';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { RequestProgress } from './request-progress';
import { useAbortSignal } from './use-abort-signal';

interface DeleteBranchDialogProps {
  context: ActionContext;
  branch: Branch;
  computes: readonly Endpoint[];
  onCancel: () => void;
}

/** Deleting a branch deletes its computes and data: asked first, and the operations it starts are watched. */
export function DeleteBranchDialog({ context, branch, computes, onCancel }: DeleteBranchDialogProps) {
  const { projectId, blockers, watchStarted, onDone } = context;
  const signal = useAbortSignal({ abortOnUnmount: true });
  const remove = useDeleteBranch(projectId, {
    onStarted: (data, variables) => {
      if (data) watchStarted(`Delete branch ${variables.branchName}`, data.operations, { branches: new Map([[branch.id, branch.name]]) });
    },
  });
  const confirm = () =>
    remove.mutate(
      { branchId: branch.id, branchName: branch.name, signal: signal.next() },
      {
        onSuccess: (data) =>
          onDone(
            data ? `Delete branch ${branch.name}: ${countOperations(data.operations.length)} started.` : `Branch ${branch.name} was already deleted.`,
            data?.operations,
          ),
      },
    );
  const cancel = () => {
    signal.abort();
    onCancel();
  };

  return (
    <ConfirmDialog
      title={`Delete branch “${branch.name}”?`}
      fullTitle={`Delete branch “${branch.name}”?`}
      confirmLabel="Delete branch"
      pending={remove.isPending}
      onConfirm={confirm}
      onCancel={cancel}
      progress={
        <RequestProgress
          projectId={projectId}
          request={remove}
          pendingLabel="Deleting the branch…"
          failedTitle="Could not delete the branch."
          doneTitle="The branch was deleted, but the details could not be read."
          blockers={blockers}
          onRetry={confirm}
        />
      }
    >
      <p>
        The branch, its data{computes.length ? ` and its ${computes.length === 1 ? 'compute' : `${computes.length} computes`}` : ''} will be deleted. This
        cannot be undone.
      </p>
      {computes.some((c) => c.current_state === 'active') && <p className="muted">Its running compute is suspended first; connections to it are closed.</p>}
    </ConfirmDialog>
  );
}
