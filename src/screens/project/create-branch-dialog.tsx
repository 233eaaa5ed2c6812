import { useId, useState, type SyntheticEvent } from 'react';
import { useCreateBranch } from '../../api/branches';
import type { Branch } from '../../api/schemas';
import { ModalDialog } from '../../components/modal-dialog';
import { countOperations, type ActionContext } from './action-context';
import { RequestProgress } from './request-progress';
import { useAbortSignal } from './use-abort-signal';

interface CreateBranchDialogProps {
  context: ActionContext;
  branches: readonly Branch[];
  onCancel: () => void;
}

/** Name, parent and an optional read-write compute; stays open until the API has taken the request. */
export function CreateBranchDialog({ context, branches, onCancel }: CreateBranchDialogProps) {
  const { projectId, blockers, watchStarted, onDone } = context;
  const titleId = useId();
  const nameId = useId();
  const nameErrorId = useId();
  const parentId = useId();
  const [name, setName] = useState('');
  const [parent, setParent] = useState(() => (branches.find((b) => b.default) ?? branches[0])?.id ?? '');
  const [withCompute, setWithCompute] = useState(true);
  const [nameError, setNameError] = useState<string | null>(null);
  const signal = useAbortSignal({ abortOnUnmount: true });

  const create = useCreateBranch(projectId, {
    onStarted: (data, variables) =>
      watchStarted(`Create branch ${variables.name}`, data.operations, {
        branches: new Map([[data.branch.id, data.branch.name]]),
        computes: new Map(data.endpoints?.map((e) => [e.id, e.name ?? e.id])),
      }),
  });

  // A refusal speaks of the input it was sent: it goes once the input changes or is sent again.
  const forgetRefusal = () => {
    if (create.isError) create.reset();
  };
  const submit = () => {
    forgetRefusal();
    const trimmed = name.trim();
    if (!trimmed) {
      setNameError('Enter a name for the new branch.');
      document.getElementById(nameId)?.focus();
      return;
    }
    setNameError(null);
    create.mutate(
      { name: trimmed, parentId: parent, withCompute, signal: signal.next() },
      { onSuccess: (data) => onDone(`Create branch ${data.branch.name}: ${countOperations(data.operations.length)} started.`, data.operations) },
    );
  };
  const onSubmit = (event: SyntheticEvent) => {
    event.preventDefault();
    submit();
  };
  const cancel = () => {
    signal.abort();
    onCancel();
  };

  return (
    <ModalDialog labelledBy={titleId} onClose={cancel} className="action-dialog">
      <h2 id={titleId}>Create branch</h2>
      <form onSubmit={onSubmit} noValidate className="action-dialog__form">
        <div className="field">
          <label htmlFor={nameId}>Branch name</label>
          <input
            id={nameId}
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              forgetRefusal();
            }}
            maxLength={256}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? nameErrorId : undefined}
          />
          {nameError && (
            <p className="field__error" id={nameErrorId}>
              {nameError}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={parentId}>Parent branch</label>
          <select
            id={parentId}
            value={parent}
            onChange={(e) => {
              setParent(e.target.value);
              forgetRefusal();
            }}
          >
            {branches.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
                {b.default ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={withCompute} onChange={(e) => setWithCompute(e.target.checked)} /> With a read-write compute (started once the branch
          is ready)
        </label>
        <RequestProgress
          projectId={projectId}
          request={create}
          pendingLabel="Creating the branch…"
          failedTitle="Could not create the branch."
          doneTitle="The branch was created, but its details could not be read."
          blockers={blockers}
          onRetry={submit}
        />
        <div className="modal__actions">
          <button type="button" onClick={cancel}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create branch
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
