import { useEndpointAction } from '../../api/endpoints';
import type { Endpoint } from '../../api/schemas';
import { countOperations, type ActionContext } from './action-context';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { RequestProgress } from './request-progress';
import { useAbortSignal } from './use-abort-signal';

interface ComputeActionDialogProps {
  context: ActionContext;
  action: 'suspend' | 'restart';
  endpoint: Endpoint;
  computeName: string;
  branchName: string;
  onCancel: () => void;
}

const WORDS = {
  suspend: { verb: 'Suspend', doing: 'Suspending', effect: 'Open connections are closed; the next connection starts it again.' },
  restart: { verb: 'Restart', doing: 'Restarting', effect: 'Open connections are closed while it restarts.' },
} as const;

/** Suspend and restart interrupt whoever is connected, so they are confirmed first. */
export function ComputeActionDialog({ context, action, endpoint, computeName, branchName, onCancel }: ComputeActionDialogProps) {
  const { projectId, blockers, watchStarted, onDone } = context;
  const words = WORDS[action];
  const title = `${words.verb} compute ${computeName}`;
  const signal = useAbortSignal({ abortOnUnmount: true });
  const run = useEndpointAction(projectId, {
    onStarted: (data) =>
      watchStarted(title, data.operations, {
        branches: new Map([[endpoint.branch_id, branchName]]),
        computes: new Map([[endpoint.id, computeName]]),
      }),
  });
  const confirm = () =>
    run.mutate(
      { endpointId: endpoint.id, action, signal: signal.next() },
      {
        onSuccess: (data) =>
          onDone(data.operations.length ? `${title}: ${countOperations(data.operations.length)} started.` : `${title}: nothing to do.`, data.operations),
      },
    );
  const cancel = () => {
    signal.abort();
    onCancel();
  };

  return (
    <ConfirmDialog
      title={`${title}?`}
      fullTitle={`${title}?`}
      confirmLabel={words.verb}
      danger={false}
      pending={run.isPending}
      onConfirm={confirm}
      onCancel={cancel}
      progress={
        <RequestProgress
          projectId={projectId}
          request={run}
          pendingLabel={`${words.doing} the compute…`}
          failedTitle={`Could not ${action} the compute.`}
          doneTitle={`The compute was ${action === 'suspend' ? 'suspended' : 'restarted'}, but the details could not be read.`}
          blockers={blockers}
          onRetry={confirm}
        />
      }
    >
      <p>
        Compute <code>{computeName}</code> of branch {branchName}. {words.effect}
      </p>
    </ConfirmDialog>
  );
}
