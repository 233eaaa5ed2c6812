import { describeProblem } from '../../api/api-error';
import { EVENT_LABELS, NotificationEventTypeSchema, type Webhook } from '../../api/notification-schemas';
import { useDeleteWebhook, useResumeWebhook, useTestWebhook } from '../../api/notifications';
import { DeliveryLog } from './delivery-log';

function scopeWords(webhook: Webhook): string {
  if (webhook.scope.kind === 'organization') return `Projects of organization ${webhook.scope.orgId}`;
  if (webhook.scope.kind === 'project') return `Project ${webhook.scope.projectId}`;
  return 'Every archived project';
}

function eventWords(events: readonly string[]): string {
  return events.map((type) => {
    const known = NotificationEventTypeSchema.safeParse(type);
    return known.success ? EVENT_LABELS[known.data] : type;
  }).join(', ');
}

/** One webhook: where, what, its state in words, Send test with the answer, Resume when paused, and its delivery log. */
export function WebhookItem({ webhook }: { webhook: Webhook }) {
  const test = useTestWebhook();
  const resume = useResumeWebhook();
  const remove = useDeleteWebhook();
  const title = `${webhook.format === 'slack' ? 'Slack' : 'JSON'} webhook to ${webhook.url}`;
  return (
    <li className="webhook">
      <h3 className="webhook__title">{title}</h3>
      <dl className="webhook__facts">
        <dt>Events</dt>
        <dd>{eventWords(webhook.events)}</dd>
        <dt>Projects</dt>
        <dd>{scopeWords(webhook)}</dd>
        <dt>State</dt>
        <dd>{webhook.state === 'paused' ? (webhook.pausedReason ?? 'Paused.') : webhook.consecutiveFailures > 0 ? `Active; the last ${webhook.consecutiveFailures} deliveries failed` : 'Active'}</dd>
      </dl>
      <div className="webhook__actions">
        <button type="button" onClick={() => test.mutate(webhook.id)} disabled={test.isPending} aria-label={`Send test to ${webhook.url}`}>
          {test.isPending ? 'Sending…' : 'Send test'}
        </button>
        {webhook.state === 'paused' && (
          <button type="button" onClick={() => resume.mutate(webhook.id)} disabled={resume.isPending}>
            Resume
          </button>
        )}
        <button type="button" onClick={() => remove.mutate(webhook.id)} disabled={remove.isPending} aria-label={`Delete webhook to ${webhook.url}`}>
          Delete
        </button>
      </div>
      <p role="status" className="webhook__test">
        {test.data
          ? `Test ${test.data.delivered ? 'delivered' : 'not delivered'}: ${test.data.status === null ? 'no answer' : `HTTP ${test.data.status}`}${test.data.answer ? ` — ${test.data.answer}` : ''}`
          : test.isError
            ? `Test not sent: ${describeProblem(test.error)}`
            : ''}
      </p>
      {(resume.isError || remove.isError) && <p role="alert">{describeProblem(resume.error ?? remove.error)}</p>}
      <DeliveryLog webhookId={webhook.id} caption={`Delivery log: ${webhook.url}`} />
    </li>
  );
}
