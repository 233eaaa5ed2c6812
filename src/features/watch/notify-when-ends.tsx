import { Link } from 'react-router-dom';
import { isApiError } from '../../api/api-error';
import { NO_WEBHOOK_CODE } from '../../api/notification-schemas';
import { useNotifyWhenEnds } from '../../api/notifications';
import { paths } from '../../config/paths';

/**
 * "Notify me when it ends": asks the server to send this operation's end to the person's webhooks. The
 * rule lives on the server, so it holds after every tab is closed.
 */
export function NotifyWhenEnds({ projectId, operationId, action }: { projectId: string; operationId: string; action: string }) {
  const notify = useNotifyWhenEnds();
  if (notify.isSuccess) {
    const count = notify.data.webhooks;
    return (
      <p role="status" className="watch-op__notify small">
        Its end goes to your {count === 1 ? 'webhook' : `${count} webhooks`}, even with this tab closed.
      </p>
    );
  }
  const noWebhook = isApiError(notify.error) && notify.error.code === NO_WEBHOOK_CODE;
  return (
    <div className="watch-op__notify">
      <button type="button" className="small" onClick={() => notify.mutate({ projectId, operationId })} disabled={notify.isPending} aria-description={action}>
        Notify me when it ends
      </button>
      {notify.isError && (
        <p role="alert" className="small">
          {noWebhook ? (
            <>
              No webhook to send it to: <Link to={paths.notifications()}>add one in Notifications</Link>.
            </>
          ) : (
            `Not set: ${notify.error.message}`
          )}
        </p>
      )}
    </div>
  );
}
