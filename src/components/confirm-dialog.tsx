import { useId, useRef, type ReactNode } from 'react';
import { ModalDialog } from './modal-dialog';

interface ConfirmDialogProps {
  /** The question, as the dialog's heading (its accessible name). */
  title: ReactNode;
  /** The heading's full text as its tooltip, and focusable, where the title may be cut (a long URL, a long name). */
  fullTitle?: string | undefined;
  /** What goes and what stays (the dialog's description). */
  children: ReactNode;
  confirmLabel: string;
  /** A change that can be undone (suspending a compute) confirms as the primary action, not as a danger. */
  danger?: boolean;
  /** Said beside the buttons while the request runs; or, for a request whose outcome has more to say, `progress`. */
  pendingLabel?: string;
  /** Where the request stands once confirmed (its failure, what blocks it), under the description. */
  progress?: ReactNode;
  /** Focus lands here once the thing is gone. */
  fallbackFocus?: HTMLElement | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before a change that interrupts work or cannot be undone: Cancel has focus, so Enter right after opening cancels. */
export function ConfirmDialog({
  title,
  fullTitle,
  children,
  confirmLabel,
  danger = true,
  pendingLabel,
  progress,
  fallbackFocus = null,
  pending,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const titleId = useId();
  const bodyId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <ModalDialog role="alertdialog" labelledBy={titleId} describedBy={bodyId} initialFocus={cancelRef} fallbackFocus={fallbackFocus} onClose={onCancel}>
      <h2 id={titleId} {...(fullTitle === undefined ? {} : { title: fullTitle, tabIndex: 0 })}>
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
        {pendingLabel !== undefined && (
          <span role="status" className="muted">
            {pending ? pendingLabel : ''}
          </span>
        )}
      </div>
    </ModalDialog>
  );
}
