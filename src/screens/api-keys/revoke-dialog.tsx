import type { ApiKey } from '../../api/schemas';
import { ConfirmDialog } from '../../components/confirm-dialog';

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

/** Asks before revoking (the console's one confirm dialog): revocation is immediate and cannot be undone. */
export function RevokeDialog({ apiKey, ownerLabel, projectLabel, fallbackFocus, pending, onConfirm, onCancel }: RevokeDialogProps) {
  return (
    <ConfirmDialog
      title={`Revoke key “${apiKey.name}”?`}
      confirmLabel="Revoke"
      pendingLabel="Revoking…"
      fallbackFocus={fallbackFocus}
      pending={pending}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        Key {apiKey.id} of {ownerLabel}
        {projectLabel ? `, scoped to project ${projectLabel}` : ''}. Everything that uses it gets “401 Unauthorized” from its very next request. This cannot be
        undone.
      </p>
      <p className="muted">If it is the key this console is signed in with, the console signs out.</p>
    </ConfirmDialog>
  );
}
