import { useId, useRef } from 'react';
import type { ApiKey } from '../../api/schemas';
import { ModalDialog } from '../../components/modal-dialog';

interface RevokeDialogProps {
  apiKey: ApiKey;
  /** "your personal keys", "Acme": whose key it is. */
  ownerLabel: string;
  projectLabel?: string | undefined;
  /** Focus lands here once the key's row is gone. */
  fallbackFocus: HTMLElement | null;
  /** The revoke is in flight: the dialog stays until it settles, so its outcome is not missed. */
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before revoking: revocation is immediate and cannot be undone. */
export function RevokeDialog({ apiKey, ownerLabel, projectLabel, fallbackFocus, pending, onConfirm, onCancel }: RevokeDialogProps) {
  const titleId = useId();
  const bodyId = useId();
  // Safe default: Enter or Space right after opening cancels rather than revokes.
  const cancelRef = useRef<HTMLButtonElement>(null);

  return (
    <ModalDialog role="alertdialog" labelledBy={titleId} describedBy={bodyId} initialFocus={cancelRef} fallbackFocus={fallbackFocus} onClose={onCancel}>
      <h2 id={titleId}>Revoke key “{apiKey.name}”?</h2>
      <div id={bodyId}>
        <p>
          Key {apiKey.id} of {ownerLabel}
          {projectLabel ? `, scoped to project ${projectLabel}` : ''}. Everything that uses it gets “401 Unauthorized” from its very next request. This cannot
          be undone.
        </p>
        <p className="muted">If it is the key this console is signed in with, the console signs out.</p>
      </div>
      <div className="modal__actions">
        <button ref={cancelRef} type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          Revoke
        </button>
        <span role="status" className="muted">
          {pending ? 'Revoking…' : ''}
        </span>
      </div>
    </ModalDialog>
  );
}
