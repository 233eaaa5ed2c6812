import { useId, useRef, useState } from 'react';
import type { ApiKeyCreated } from '../../api/schemas';
import { ModalDialog } from '../../components/modal-dialog';

type CopyState = 'idle' | 'copied' | 'failed';

/**
 * The new key's secret, shown this once. It lives only in the state of the component that opened
 * this dialog: closing the dialog (or leaving the page) drops it for good.
 */
export function SecretDialog({ created, ownerLabel, onClose }: { created: ApiKeyCreated; ownerLabel: string; onClose: () => void }) {
  const titleId = useId();
  const warningId = useId();
  const secretId = useId();
  const copyRef = useRef<HTMLButtonElement>(null);
  const [copy, setCopy] = useState<CopyState>('idle');
  // Escape (or a click on the backdrop) would throw the secret away: asked first unless it was copied.
  const [askingToClose, setAskingToClose] = useState(false);
  const askToClose = () => {
    if (copy === 'copied') onClose();
    else setAskingToClose(true);
  };

  async function copySecret() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  }

  return (
    <ModalDialog
      labelledBy={titleId}
      describedBy={warningId}
      initialFocus={copyRef}
      onClose={askToClose}
      onBackdropClick={askToClose}
      className="secret-dialog"
    >
      <h2 id={titleId}>Key “{created.name}” created</h2>
      <p id={warningId} className="callout callout--warning">
        <strong>Copy the secret now: you will not see it again.</strong> The console does not keep it, and the API never shows it a second time. If it is lost,
        revoke the key and create a new one.
      </p>
      <p className="muted small">
        {ownerLabel}
        {created.project_id ? `, scoped to project ${created.project_id}` : ''} · id {created.id}
      </p>
      <label htmlFor={secretId}>Secret</label>
      <div className="secret-dialog__secret">
        <input id={secretId} type="text" readOnly value={created.key} autoComplete="off" spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button ref={copyRef} type="button" onClick={() => void copySecret()}>
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p role="status" className="small">
        {copy === 'copied' && 'Copied to the clipboard.'}
        {copy === 'failed' && 'The browser did not allow copying: select the secret above and copy it by hand.'}
      </p>
      {askingToClose ? (
        <div className="callout callout--warning" role="alert">
          <p className="callout__title">Close without the secret? It cannot be shown again.</p>
          <div className="modal__actions">
            <button ref={(button) => button?.focus()} type="button" onClick={() => setAskingToClose(false)}>
              Keep it open
            </button>
            <button type="button" className="danger" onClick={onClose}>
              Close and lose the secret
            </button>
          </div>
        </div>
      ) : (
        <div className="modal__actions">
          <button type="button" className="primary" onClick={onClose}>
            Done
          </button>
        </div>
      )}
    </ModalDialog>
  );
}
