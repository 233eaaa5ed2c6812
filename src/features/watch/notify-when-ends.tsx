import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { isApiError } from '../../api/api-error';
import { NO_WEBHOOK_CODE } from '../../api/notification-schemas';
import { notificationQueries, useNotifyWhenEnds } from '../../api/notifications';
import { paths } from '../../config/paths';

/** Why "Notify me when it ends" cannot be pressed yet, and where to fix it: said once in the tray (watch-list.tsx), and by a refusal. */
export function AddWebhookFirst() {
  return (
    <>
      No webhook to send an operation’s end to: <Link to={paths.notifications()}>add one in Notifications</Link>.
    </>
  );
}

/** Whether the person has no webhook at all, from the one shared read of their webhooks (React Query's cache). */
export function useNoWebhook(enabled = true): boolean {
  const webhooks = useQuery({ ...notificationQueries.webhooks(), enabled });
  return webhooks.data?.webhooks.length === 0;
}

/**
 * "Notify me when it ends": asks the server to send this operation's end to the person's webhooks. The
 * rule lives on the server, so it holds after every tab is closed. With no webhook it says so before it
 * is pressed: disabled, and described by the tray's one note of the reason and where to add one (`reasonId`),
 * instead of being refused.
 */
export function NotifyWhenEnds({ projectId, operationId, action, reasonId }: { projectId: string; operationId: string; action: string; reasonId: string }) {
  const notify = useNotifyWhenEnds();
  const none = useNoWebhook();
  if (notify.isSuccess) {
    const count = notify.data.webhooks;
    return (
      <p role="status" className="watch-op__notify small">
        Its end goes to your {count === 1 ? 'webhook' : `${count} webhooks`}, even with this tab closed.
      </p>
    );
  }
  const refused = isApiError(notify.error) && notify.error.code === NO_WEBHOOK_CODE;
  return (
    <div className="watch-op__notify">
      <button
        type="button"
        className="small"
        onClick={() => notify.mutate({ projectId, operationId })}
        disabled={notify.isPending || none}
        aria-description={action}
        aria-describedby={none ? reasonId : undefined}
      >
        Notify me when it ends
      </button>
      {notify.isError && (
        <p role="alert" className="small">
          {refused ? <AddWebhookFirst /> : `Not set: ${notify.error.message}`}
        </p>
      )}
    </div>
  );
}
