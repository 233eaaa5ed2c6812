import { useQuery } from '@tanstack/react-query';
import { loadFailure } from '../../api/load-failure';
import { EVENT_LABELS, NotificationEventTypeSchema, type Delivery } from '../../api/notification-schemas';
import { notificationQueries } from '../../api/notifications';
import { DateTime } from '../../components/date-time';
import { LoadFailureCallout } from '../../components/load-failure-callout';

const STATE_WORDS: Record<Delivery['state'], string> = { pending: 'Waiting to retry', delivered: 'Delivered', failed: 'Failed' };

function eventLabel(type: string): string {
  const known = NotificationEventTypeSchema.safeParse(type);
  return known.success ? EVENT_LABELS[known.data] : type;
}

function answerOf(delivery: Delivery): string {
  if (delivery.attempts === 0) return 'Not tried yet';
  const status = delivery.lastStatus === null ? 'No answer' : `HTTP ${delivery.lastStatus}`;
  return delivery.lastAnswer ? `${status}: ${delivery.lastAnswer}` : status;
}

/** One webhook's deliveries, newest first: event, status, attempts, the last answer. */
export function DeliveryLog({ webhookId, caption }: { webhookId: string; caption: string }) {
  const logOptions = notificationQueries.deliveries(webhookId);
  const log = useQuery(logOptions);
  // A log read every 10 s stays on screen when one read fails (the notices say so); a first read that fails says it.
  const failure = loadFailure(log, logOptions.queryKey);
  if (failure) {
    return <LoadFailureCallout title="The delivery log could not be loaded." failure={failure} onRetry={() => void log.refetch()} fetching={log.isFetching} />;
  }
  if (log.data === undefined) return <p className="muted">Loading the delivery log…</p>;
  if (log.data.deliveries.length === 0) return <p className="muted">Nothing sent yet.</p>;
  return (
    <table className="delivery-log">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Operation</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Queued</th>
        </tr>
      </thead>
      <tbody>
        {log.data.deliveries.map((d) => (
          <tr key={d.eventId}>
            <td>{eventLabel(d.type)}</td>
            <td>
              <code>{d.operationId}</code>
            </td>
            <td>
              {STATE_WORDS[d.state]}
              {d.nextAttemptAt && (
                <>
                  {' '}
                  (next <DateTime iso={d.nextAttemptAt} />)
                </>
              )}
            </td>
            <td>{d.attempts}</td>
            <td className="delivery-log__answer">{answerOf(d)}</td>
            <td>
              <DateTime iso={d.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
