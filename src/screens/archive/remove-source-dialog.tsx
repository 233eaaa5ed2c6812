import type { ArchiveSource } from '../../api/archive-schemas';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { formatCount } from '../../lib/format';

interface RemoveSourceDialogProps {
  source: ArchiveSource;
  fallbackFocus: HTMLElement | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before removing a source, saying what is deleted (the stored key) and what stays (the operations kept). */
export function RemoveSourceDialog({ source, ...confirm }: RemoveSourceDialogProps) {
  return (
    <ConfirmDialog title={`Stop keeping history with “${source.label}”?`} confirmLabel="Remove" pendingLabel="Removing…" {...confirm}>
      <p>
        The console’s server deletes the stored key at once and stops reading with it. The API key itself is not revoked: it keeps working wherever else it is
        used.
      </p>
      <p className="muted">
        The {formatCount(source.operations)} operations already stored are not deleted, but a project no other kept key covers is read from the API again, as
        before it was kept.
      </p>
    </ConfirmDialog>
  );
}
