import { ConfirmDialog } from '../../components/confirm-dialog';

interface DeleteWebhookDialogProps {
  url: string;
  /** Focus lands here once the webhook is gone. */
  fallbackFocus: HTMLElement | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before deleting a webhook, saying what goes with it (its delivery log, what waits to be sent). */
export function DeleteWebhookDialog({ url, ...confirm }: DeleteWebhookDialogProps) {
  return (
    <ConfirmDialog title={`Delete the webhook to ${url}?`} fullTitle={url} confirmLabel="Delete webhook" pendingLabel="Deleting…" {...confirm}>
      <p>Events stop going to this URL at once. Its delivery log and the events still waiting to be sent are deleted with it.</p>
      <p className="muted">This cannot be undone: a new webhook gets a new signing secret.</p>
    </ConfirmDialog>
  );
}
