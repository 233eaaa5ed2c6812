import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import './notifications.css';
import { loadFailure } from '../../api/load-failure';
import type { CreatedWebhook } from '../../api/notification-schemas';
import { notificationQueries } from '../../api/notifications';
import { LoadFailureCallout } from '../../components/load-failure-callout';
import { useDocumentTitle } from '../../lib/use-document-title';
import { SigningSecret } from './signing-secret';
import { WebhookForm } from './webhook-form';
import { WebhookItem } from './webhook-item';

/** /settings/notifications: webhooks that hear about operations after every tab is closed (docs/notifications.md). */
export function NotificationsScreen() {
  useDocumentTitle('Notifications');
  const webhooksOptions = notificationQueries.webhooks();
  const webhooks = useQuery(webhooksOptions);
  // Said at once, also while the console tries again by itself; a failed refresh keeps the list (the notices say it).
  const failure = loadFailure(webhooks, webhooksOptions.queryKey);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const listHeadingId = useId();
  return (
    <section className="notifications">
      <h1 tabIndex={-1}>Notifications</h1>
      <p>
        The server sends these from the archive's record, whether or not a tab is open. Each webhook is seen only by sessions of the API key that added it, and
        hears only about projects that key can read.
      </p>
      {created ? <SigningSecret secret={created.secret} url={created.webhook.url} onDone={() => setCreated(null)} /> : <WebhookForm onCreated={setCreated} />}
      <h2 id={listHeadingId} tabIndex={-1} className="notifications__list-heading">
        Webhooks
      </h2>
      {failure ? (
        <LoadFailureCallout title="The webhooks could not be loaded" failure={failure} onRetry={() => void webhooks.refetch()} fetching={webhooks.isFetching} />
      ) : webhooks.data === undefined ? (
        <p className="muted">Loading webhooks…</p>
      ) : webhooks.data.webhooks.length === 0 ? (
        <p className="muted">No webhooks yet.</p>
      ) : (
        <ul className="webhooks">
          {webhooks.data.webhooks.map((webhook) => (
            <WebhookItem key={webhook.id} webhook={webhook} listHeadingId={listHeadingId} />
          ))}
        </ul>
      )}
    </section>
  );
}
