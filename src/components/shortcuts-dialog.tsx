import { useId } from 'react';
import { ModalDialog } from './modal-dialog';

export interface Shortcut {
  /** What to press, as shown: "/", "j", "Enter". */
  keys: string;
  does: string;
}

/** The keyboard shortcuts of a page, listed; Escape or Close closes it. */
export function ShortcutsDialog({ shortcuts, onClose }: { shortcuts: readonly Shortcut[]; onClose: () => void }) {
  const titleId = useId();
  return (
    <ModalDialog labelledBy={titleId} onClose={onClose} className="shortcuts-dialog">
      <h2 id={titleId}>Keyboard shortcuts</h2>
      <dl className="shortcuts">
        {shortcuts.map((shortcut) => (
          <div key={shortcut.keys} className="shortcuts__row">
            <dt>
              <kbd>{shortcut.keys}</kbd>
            </dt>
            <dd>{shortcut.does}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">Shortcuts do nothing while you type in a field.</p>
      <div className="modal__actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
