import { useId, useRef } from 'react';
import type { ArchiveSource } from '../../api/archive-schemas';
import { ModalDialog } from '../../components/modal-dialog';
import { formatCount } from '../../lib/format';

interface RemoveSourceDialogProps {
  source: ArchiveSource;
  fallbackFocus: HTMLElement | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before removing a source, saying what is deleted (the stored key) and what stays (the operations kept). */
export function RemoveSourceDialog({ source, fallbackFocus, pending, onConfirm, onCancel }: RemoveSourceDialogProps) {
  const titleId = useId();
  const bodyId = useId();
  // Safe default: Enter right after opening cancels.
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <ModalDialog role="alertdialog" labelledBy={titleId} describedBy={bodyId} initialFocus={cancelRef} fallbackFocus={fallbackFocus} onClose={onCancel}>
      <h2 id={titleId}>Stop keeping history with “{source.label}”?</h2>
      <div id={bodyId}>
        <p>
          The console’s server deletes the stored key at once and stops reading with it. The API key itself is not revoked: it keeps working
          wherever else it is used.
        </p>
        <p className="muted">
          The {formatCount(source.operations)} operations already stored are not deleted, but a project no other kept key covers is
          read from the API again, as before it was kept.
        </p>
      </div>
      <div className="modal__actions">
        <button ref={cancelRef} type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          Remove
        </button>
        <span role="status" className="muted">
          {pending ? 'Removing…' : ''}
        </span>
      </div>
    </ModalDialog>
  );
}
