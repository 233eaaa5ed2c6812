import { useId, useRef, type ReactNode } from 'react';
import { ModalDialog } from '../../components/modal-dialog';

interface ConfirmDialogProps {
  title: string;
  confirmLabel: string;
  danger?: boolean;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** What will happen, in words. */
  children: ReactNode;
  /** Where the request stands once confirmed. */
  progress: ReactNode;
}

/** Asks before a change that interrupts work or cannot be undone; stays open until the request settles. */
export function ConfirmDialog({ title, confirmLabel, danger = false, pending, onConfirm, onCancel, children, progress }: ConfirmDialogProps) {
  const titleId = useId();
  const bodyId = useId();
  // Safe default: Enter or Space right after opening cancels rather than confirms.
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <ModalDialog role="alertdialog" labelledBy={titleId} describedBy={bodyId} initialFocus={cancelRef} onClose={onCancel}>
      {/* A long name is cut to one line: in full as the title (hover) and when the heading has focus. */}
      <h2 id={titleId} title={title} tabIndex={0}>
        {title}
      </h2>
      <div id={bodyId}>{children}</div>
      {progress}
      <div className="modal__actions">
        <button ref={cancelRef} type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : 'primary'} onClick={onConfirm} disabled={pending}>
          {confirmLabel}
        </button>
      </div>
    </ModalDialog>
  );
}
