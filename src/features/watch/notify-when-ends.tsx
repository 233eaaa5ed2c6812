import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router-dom';
import { isApiError } from '../../api/api-error';
import { NO_WEBHOOK_CODE } from '../../api/notification-schemas';
import { notificationQueries, useNotifyWhenEnds } from '../../api/notifications';
import { paths } from '../../config/paths';

function AddWebhookFirst() {
  return (
    <>
      No webhook to send it to: <Link to={paths.notifications()}>add one in Notifications</Link>.
    </>
  );
}

/**
 * "Notify me when it ends": asks the server to send this operation's end to the person's webhooks. The
 * rule lives on the server, so it holds after every tab is closed. With no webhook it says so before it
 * is pressed (disabled, with the reason and where to add one) instead of being refused.
 */
export function NotifyWhenEnds({ projectId, operationId, action }: { projectId: string; operationId: string; action: string }) {
  const reasonId = useId();
  const notify = useNotifyWhenEnds();
  // One shared read of the person's webhooks for every tray entry (React Query's cache).
  const webhooks = useQuery(notificationQueries.webhooks());
  if (notify.isSuccess) {
    const count = notify.data.webhooks;
    return (
      <p role="status" className="watch-op__notify small">
        Its end goes to your {count === 1 ? 'webhook' : `${count} webhooks`}, even with this tab closed.
      </p>
    );
  }
  const none = webhooks.data?.webhooks.length === 0;
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
      {none && !notify.isError && (
        <p id={reasonId} className="small muted">
          <AddWebhookFirst />
        </p>
      )}
      {notify.isError && (
        <p role="alert" className="small">
          {refused ? <AddWebhookFirst /> : `Not set: ${notify.error.message}`}
        </p>
      )}
    </div>
  );
}
