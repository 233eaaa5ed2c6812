import { useState } from 'react';
import { describeProblem } from '../../api/api-error';
import { EVENT_LABELS, NotificationEventTypeSchema, type Webhook } from '../../api/notification-schemas';
import { useDeleteWebhook, useResumeWebhook, useTestWebhook } from '../../api/notifications';
import { DateTime } from '../../components/date-time';
import { DeleteWebhookDialog } from './delete-webhook-dialog';
import { DeliveryLog } from './delivery-log';

function scopeWords(webhook: Webhook): string {
  if (webhook.scope.kind === 'organization') return `Projects of organization ${webhook.scope.orgId}`;
  if (webhook.scope.kind === 'project') return `Project ${webhook.scope.projectId}`;
  return 'Every archived project';
}

function eventWords(events: readonly string[]): string {
  return events
    .map((type) => {
      const known = NotificationEventTypeSchema.safeParse(type);
      return known.success ? EVENT_LABELS[known.data] : type;
    })
    .join(', ');
}

/** The webhook's state in words: paused (and why), failing since when, or active and when it last delivered. */
function WebhookState({ webhook }: { webhook: Webhook }) {
  if (webhook.state === 'paused') {
    // The reason says which: failing for days, a 410 from the receiver (disabled), the maker's key revoked.
    return (
      <>
        <span className="status status--danger">Paused</span> <span>{webhook.pausedReason ?? ''}</span>
      </>
    );
  }
  if (webhook.failingSince) {
    return (
      <>
        <span className="status status--pending">Failing</span>{' '}
        <span>
          every delivery since <DateTime iso={webhook.failingSince} /> has failed ({webhook.consecutiveFailures} attempts); each event is retried on its
          schedule, and the webhook is paused if this goes on for 5 days.
        </span>
      </>
    );
  }
  return (
    <>
      <span className="status status--success">Active</span>
      {webhook.lastSuccessAt && (
        <span className="muted">
          {' '}
          last delivered <DateTime iso={webhook.lastSuccessAt} />
        </span>
      )}
    </>
  );
}

/** Said beside every test's answer: the log below holds events, never tests. */
const TEST_NOT_LOGGED = 'Tests are not kept in the delivery log.';

/** One webhook: where, what, its state in words, Send test with the answer, Resume when paused, Delete (asked first), and its delivery log. */
export function WebhookItem({ webhook, listHeadingId }: { webhook: Webhook; listHeadingId: string }) {
  const test = useTestWebhook();
  const resume = useResumeWebhook();
  const remove = useDeleteWebhook();
  const [confirming, setConfirming] = useState(false);
  const title = `${webhook.format === 'slack' ? 'Slack' : 'JSON'} webhook to ${webhook.url}`;
  const paused = webhook.state === 'paused';
  return (
    <li className="webhook">
      <h3 className="webhook__title">{title}</h3>
      <dl className="fields webhook__facts">
        <dt>Events</dt>
        <dd>{eventWords(webhook.events)}</dd>
        <dt>Projects</dt>
        <dd>{scopeWords(webhook)}</dd>
        <dt>State</dt>
        <dd>
          <WebhookState webhook={webhook} />
        </dd>
      </dl>
      <div className="webhook__actions">
        <button type="button" onClick={() => test.mutate(webhook.id)} disabled={test.isPending} aria-label={`Send test to ${webhook.url}`}>
          {test.isPending ? 'Sending…' : 'Send test'}
        </button>
        {paused && (
          <button type="button" className="primary" onClick={() => resume.mutate(webhook.id)} disabled={resume.isPending}>
            Resume
          </button>
        )}
        <button type="button" className="danger webhook__delete" onClick={() => setConfirming(true)} aria-label={`Delete webhook to ${webhook.url}`}>
          Delete
        </button>
      </div>
      <p role="status" className="webhook__test">
        {test.data
          ? // A test is no event: the delivery log below lists events only, so the answer says where the test went.
            `Test ${test.data.delivered ? 'delivered' : 'not delivered'}: ${test.data.status === null ? 'no answer' : `HTTP ${test.data.status}`}${test.data.answer ? ` — ${test.data.answer}` : ''}. ${TEST_NOT_LOGGED}`
          : test.isError
            ? `Test not sent: ${describeProblem(test.error)}`
            : ''}
      </p>
      {(resume.isError || remove.isError) && <p role="alert">{describeProblem(resume.error ?? remove.error)}</p>}
      <DeliveryLog webhookId={webhook.id} caption={`Delivery log: ${webhook.url}`} paused={paused} />
      {confirming && (
        <DeleteWebhookDialog
          url={webhook.url}
          fallbackFocus={document.getElementById(listHeadingId)}
          pending={remove.isPending}
          onConfirm={() => remove.mutate(webhook.id, { onSettled: () => setConfirming(false) })}
          onCancel={() => setConfirming(false)}
        />
      )}
    </li>
  );
}
