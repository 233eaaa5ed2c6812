import { hashKey, useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { describeError, describeProblem } from '../../api/api-error';
import { loadFailure } from '../../api/load-failure';
import { EVENT_LABELS, NotificationEventTypeSchema, type Delivery } from '../../api/notification-schemas';
import { loggedDeliveries, notificationQueries, useRedeliver } from '../../api/notifications';
import type { AwaitedDelivery } from '../../api/retry-policy';
import { DateTime } from '../../components/date-time';
import { ErrorCallout } from '../../components/error-callout';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { TableHead } from '../../components/table-head';
import { paths } from '../../config/paths';
import { formatDuration, humanizeAction } from '../../lib/format';

export const DELIVERY_COLUMNS = ['When', 'Project', 'Action', 'Event', 'Result', 'Status code', 'Duration'] as const;

function eventLabel(type: string): string {
  const known = NotificationEventTypeSchema.safeParse(type);
  return known.success ? EVENT_LABELS[known.data] : type;
}

/** The result in words (never colour alone), with the tone its badge takes. */
function resultOf(delivery: Delivery, paused: boolean): { words: string; tone: 'success' | 'danger' | 'pending' | 'neutral' } {
  if (delivery.state === 'delivered') return { words: 'Delivered', tone: 'success' };
  if (delivery.state === 'failed') return { words: 'Failed', tone: 'danger' };
  if (paused) return { words: 'Waiting: the webhook is paused', tone: 'neutral' };
  return { words: delivery.attempts === 0 ? 'Not tried yet' : 'Waiting to retry', tone: 'pending' };
}

/** A JSON body indented for reading; anything else as it was sent. */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body) as unknown, null, 2);
  } catch {
    return body;
  }
}

function DeliveryRow({
  delivery: d,
  paused,
  onRedeliver,
  redelivering,
}: {
  delivery: Delivery;
  paused: boolean;
  onRedeliver: (eventId: string) => void;
  redelivering: boolean;
}) {
  const eventId = useId();
  const detailsId = useId();
  const [open, setOpen] = useState(false);
  const result = resultOf(d, paused);
  const answer = d.lastAttemptAt === null ? null : d.lastAnswer || (d.lastStatus === null ? 'No answer.' : '(an empty body)');
  return (
    <>
      <tr>
        <td data-label="When">
          <DateTime iso={d.lastAttemptAt ?? d.createdAt} />
        </td>
        <td data-label="Project">{d.projectName ?? <code>{d.projectId}</code>}</td>
        <td data-label="Action">
          <Link to={paths.operation(d.projectId, d.operationId)}>{d.action ? humanizeAction(d.action) : d.operationId}</Link>
        </td>
        <td data-label="Event" id={eventId}>
          {eventLabel(d.type)} <span className="visually-hidden">event of operation {d.operationId}</span>
        </td>
        <td data-label="Result">
          <span className={`status status--${result.tone}`}>{result.words}</span>
          {d.nextAttemptAt && !paused && (
            <span className="muted small">
              {' '}
              next <DateTime iso={d.nextAttemptAt} />
            </span>
          )}
          {d.attempts > 1 && <span className="muted small"> ({d.attempts} attempts)</span>}
        </td>
        <td data-label="Status code">
          {d.lastAttemptAt === null ? <span className="muted">—</span> : (d.lastStatus ?? <span className="muted">No answer</span>)}
        </td>
        <td data-label="Duration">{d.lastDurationMs === null ? <span className="muted">—</span> : formatDuration(d.lastDurationMs)}</td>
        <td className="cell--actions delivery-log__actions">
          {d.payload !== null && (
            <button type="button" className="delivery-log__toggle" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
              Payload and answer
            </button>
          )}
          {d.redeliverable && !paused && (
            <button type="button" onClick={() => onRedeliver(d.eventId)} disabled={redelivering} aria-describedby={eventId}>
              Redeliver
            </button>
          )}
        </td>
      </tr>
      {open && d.payload !== null && (
        <tr id={detailsId} className="delivery-log__details">
          <td colSpan={DELIVERY_COLUMNS.length + 1}>
            <p className="small muted">Sent: the exact body, signed (occurred_at is when the console saw the change)</p>
            {/* Scrolls when long: reachable by keyboard. */}
            <pre tabIndex={0} aria-label="Payload sent">
              {readable(d.payload)}
            </pre>
            <p className="small muted">The receiver’s answer{d.lastStatus === null ? '' : ` (HTTP ${d.lastStatus})`}</p>
            <pre tabIndex={0} aria-label="The receiver’s answer">
              {answer}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}

/** One webhook's deliveries, newest first: when, which project and action, the result, the answer, the payload sent, and Redeliver. */
export function DeliveryLog({ webhookId, caption, paused }: { webhookId: string; caption: string; paused: boolean }) {
  // The event last sent again: the log is read every second until its attempt shows, not in up to 10 s.
  const [awaited, setAwaited] = useState<AwaitedDelivery | undefined>(undefined);
  const logOptions = notificationQueries.deliveries(webhookId, awaited);
  const log = useInfiniteQuery(logOptions);
  const redeliver = useRedeliver(webhookId);
  const [said, setSaid] = useState('');
  // A log read every 10 s stays on screen when one read fails (the notices say so); a first read that fails says it.
  const failure = loadFailure(log, logOptions.queryKey);
  if (failure) {
    return <LoadFailureCallout title="The delivery log could not be loaded." failure={failure} onRetry={() => void log.refetch()} fetching={log.isFetching} />;
  }
  if (log.data === undefined) return <p className="muted">Loading the delivery log…</p>;
  const deliveries = loggedDeliveries(log.data);
  if (deliveries.length === 0) return <p className="muted">No event sent yet (tests are not logged).</p>;
  const send = (eventId: string) => {
    setSaid('');
    const attempts = deliveries.find((d) => d.eventId === eventId)?.attempts ?? 0;
    redeliver.mutate(eventId, {
      onSuccess: () => {
        setAwaited({ eventId, attempts, since: Date.now() });
        setSaid(`Event ${eventId} is queued again: it is sent within a few seconds.`);
      },
    });
  };
  return (
    <>
      <div className="table-wrap">
        <table className="data-table data-table--wrap delivery-log">
          <caption className="delivery-log__caption">{caption}</caption>
          <TableHead
            columns={DELIVERY_COLUMNS}
            extra={
              <th scope="col">
                <span className="visually-hidden">Payload and actions</span>
              </th>
            }
          />
          <tbody>
            {deliveries.map((d) => (
              <DeliveryRow key={d.eventId} delivery={d} paused={paused} onRedeliver={send} redelivering={redeliver.isPending} />
            ))}
          </tbody>
        </table>
      </div>
      {log.hasNextPage && (
        <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          {log.isFetchingNextPage ? 'Loading older deliveries…' : 'Show older deliveries'}
        </button>
      )}
      {log.isFetchNextPageError && (
        <ErrorCallout
          title="Could not load older deliveries."
          {...describeError(log.error)}
          faultId={hashKey(logOptions.queryKey)}
          onRetry={() => void log.fetchNextPage()}
        />
      )}
      {redeliver.isError && (
        <p role="alert" className="field__error">
          Not redelivered: {describeProblem(redeliver.error)}
        </p>
      )}
      <p role="status" className="muted small">
        {said}
      </p>
    </>
  );
}
