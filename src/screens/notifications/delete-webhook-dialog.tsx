import { useId, useRef } from 'react';
import { ModalDialog } from '../../components/modal-dialog';

interface DeleteWebhookDialogProps {
  url: string;
  /** Focus lands here once the webhook is gone. */
  fallbackFocus: HTMLElement | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before deleting a webhook, saying what goes with it (its delivery log, what waits to be sent). */
export function DeleteWebhookDialog({ url, fallbackFocus, pending, onConfirm, onCancel }: DeleteWebhookDialogProps) {
  const titleId = useId();
  const bodyId = useId();
  // Safe default: Enter right after opening cancels.
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <ModalDialog role="alertdialog" labelledBy={titleId} describedBy={bodyId} initialFocus={cancelRef} fallbackFocus={fallbackFocus} onClose={onCancel}>
      <h2 id={titleId} title={url} tabIndex={0}>
        Delete the webhook to {url}?
      </h2>
      <div id={bodyId}>
        <p>Events stop going to this URL at once. Its delivery log and the events still waiting to be sent are deleted with it.</p>
        <p className="muted">This cannot be undone: a new webhook gets a new signing secret.</p>
      </div>
      <div className="modal__actions">
        <button ref={cancelRef} type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          Delete webhook
        </button>
        <span role="status" className="muted">
          {pending ? 'Deleting…' : ''}
        </span>
      </div>
    </ModalDialog>
  );
}
