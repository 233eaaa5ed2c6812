import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

interface ModalDialogProps {
  labelledBy: string;
  describedBy?: string;
  /** `alertdialog` for confirmations of something that cannot be undone. */
  role?: 'dialog' | 'alertdialog';
  /** Where focus goes when the dialog opens; the dialog's first control otherwise. */
  initialFocus?: RefObject<HTMLElement | null>;
  /** Where focus goes on close when the control that opened the dialog is gone (e.g. its row was removed). */
  fallbackFocus?: HTMLElement | null | undefined;
  onClose: () => void;
  /** A click on the backdrop (outside the dialog's box); nothing happens by default. */
  onBackdropClick?: (() => void) | undefined;
  className?: string;
  children: ReactNode;
}

/**
 * A native modal <dialog>, open while mounted: the browser makes the page behind it inert and
 * closes it on Escape; focus moves in on open and back to where it was on close.
 */
export function ModalDialog({
  labelledBy,
  describedBy,
  role = 'dialog',
  initialFocus,
  fallbackFocus,
  onClose,
  onBackdropClick,
  className,
  children,
}: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    (initialFocus?.current ?? dialog.querySelector<HTMLElement>('input, select, textarea, button, [tabindex]'))?.focus();
    // Escape: the browser fires `cancel`; closing goes through the owner's state so React stays in charge.
    const cancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
      (returnTo?.isConnected ? returnTo : fallbackFocus)?.focus();
    };
  }, [initialFocus, fallbackFocus]);

  return (
    <dialog
      ref={ref}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      aria-modal="true"
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      className={className ? `modal ${className}` : 'modal'}
      // The dialog element itself is the target only of clicks on its backdrop (its content covers its box).
      onClick={onBackdropClick && ((event) => event.target === event.currentTarget && onBackdropClick())}
    >
      {children}
    </dialog>
  );
}
