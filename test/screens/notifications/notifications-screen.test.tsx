import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { WebhookFormat, WebhookScope } from '../../../src/api/notification-schemas';
import { PAUSE_AFTER_FAILURES } from '../../../server/notify/backoff';
import { PAUSED_FAILURES_REASON } from '../../../server/notify/delivery-worker';
import { newWebhookSecret } from '../../../server/notify/signature';
import { enqueueDelivery, recordAttempt } from '../../../server/store/deliveries';
import { insertWebhook, recordOutcome } from '../../../server/store/webhooks';
import { fingerprintOf, serverSeal } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The Notifications screen against the console server's own /notifications routes, on its store. Webhooks
// go only to public addresses here (no WEBHOOK_ALLOW_PRIVATE): the receivers are public addresses written as
// IP literals, since nothing is resolved on these machines, and MSW answers them (nothing leaves the process).

const sim = setupSimServer({ store: true });
const RECEIVER = 'https://93.184.215.14';

let made = 0;

/** A webhook made with the session's key, written through the store's own module, as the server keeps one. */
async function keepWebhook(url: string, { format = 'json', scope = { kind: 'all' }, events = ['operation.failed'] }: { format?: WebhookFormat; scope?: WebhookScope; events?: ('operation.failed' | 'operation.finished')[] } = {}) {
  return insertWebhook(await sim.console.db(), {
    id: `wh_test_${++made}`,
    ownerFingerprint: fingerprintOf(sim.apiKey),
    ownerKeySealed: serverSeal.seal('owner-key', sim.apiKey),
    url,
    format,
    scope,
    events,
    secretSealed: serverSeal.seal('webhook-secret', newWebhookSecret()),
    createdAt: new Date(),
  });
}

function open() {
  return renderApp('/settings/notifications', { apiKey: sim.apiKey });
}

describe('Notifications screen', () => {
  it('adds a webhook and shows its signing secret once, read-only', async () => {
    const { user, unmount } = open();
    expect(await screen.findByRole('heading', { level: 1, name: 'Notifications' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Notifications' })).toHaveAttribute('href', '/settings/notifications');

    await user.type(screen.getByRole('textbox', { name: 'Webhook URL' }), `${RECEIVER}/ops`);
    expect(screen.getByRole('checkbox', { name: 'Failed' })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Longer than usual' }));
    await user.click(screen.getByRole('checkbox', { name: 'Finished' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Format' }), 'slack');
    await user.click(screen.getByRole('button', { name: 'Add webhook' }));

    const secret = await screen.findByRole('textbox', { name: 'Signing secret' });
    // The secret the server made (whsec_ and its 32 random bytes, encoded).
    expect((secret as HTMLInputElement).value).toMatch(/^whsec_[\w+/=-]{43,}$/);
    expect(secret).toHaveAttribute('readonly');
    const item = (await screen.findByRole('heading', { level: 3, name: `Slack webhook to ${RECEIVER}/ops` })).closest('li');
    expect(within(item as HTMLElement).getByText('Failed, Longer than usual, Finished')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('textbox', { name: 'Signing secret' })).not.toBeInTheDocument();
    // Kept by the server: the page opened again lists it, and never shows the secret again.
    unmount();
    open();
    expect(await screen.findByRole('heading', { level: 3, name: `Slack webhook to ${RECEIVER}/ops` })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Signing secret' })).not.toBeInTheDocument();
  });

  it('shows a refused address on the form', async () => {
    const { user } = open();
    await user.type(await screen.findByRole('textbox', { name: 'Webhook URL' }), 'http://127.0.0.1:9000/hook');
    await user.click(screen.getByRole('button', { name: 'Add webhook' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(/loopback, private or reserved address/);
    expect(screen.getByRole('textbox', { name: 'Webhook URL' })).toHaveAttribute('aria-invalid', 'true');
  });

  it('says a paused webhook is paused, resumes it, sends a test with the answer shown, and lists its deliveries', async () => {
    const url = `${RECEIVER}/down`;
    sim.server.use(http.post(url, () => HttpResponse.text('thanks')));
    const project = sim.cp.addProject({ name: 'Webhook target', ownerId: sim.seed.userId, compute: false });
    const failed = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'failed' });
    const hook = await keepWebhook(url, { scope: { kind: 'project', projectId: project.id } });
    // What 20 failed deliveries in a row leave, written as the delivery worker writes them.
    const db = await sim.console.db();
    const queuedAt = new Date(Date.now() - 60 * 60_000);
    await enqueueDelivery(db, { webhookId: hook.id, eventId: `${failed.id}:failed:1`, type: 'operation.failed', projectId: project.id, operationId: failed.id, occurredAt: queuedAt, operation: { ...failed }, now: queuedAt });
    const [delivery] = (await db.query<{ id: string }>('SELECT id FROM notify_deliveries WHERE webhook_id = $1', [hook.id])).rows;
    for (let attempt = 1; attempt <= PAUSE_AFTER_FAILURES; attempt++) {
      await recordAttempt(db, { id: delivery?.id ?? '', state: 'pending', attempted: true, status: 503, answer: 'down', at: new Date(), nextAttemptAt: new Date(Date.now() + 60 * 60_000), visible: true });
      await recordOutcome(db, hook.id, false, PAUSE_AFTER_FAILURES, PAUSED_FAILURES_REASON);
    }

    const { user } = open();
    expect(await screen.findByText('Paused after 20 failed deliveries in a row.')).toBeInTheDocument();
    const log = await screen.findByRole('table', { name: `Delivery log: ${url}` });
    expect(within(log).getByRole('row', { name: new RegExp(`Failed ${failed.id} Waiting to retry .* 20 HTTP 503: down`) })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: `Send test to ${url}` }));
    expect(await screen.findByText('Test delivered: HTTP 200 — thanks')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Resume' }));
    expect(await screen.findByText('Active')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resume' })).not.toBeInTheDocument();
  });

  it('a list the console server cannot give for a while (503) says so with a countdown, then shows by itself', async () => {
    await keepWebhook(`${RECEIVER}/ops`);
    sim.server.use(http.get('*/notifications/webhooks', () => HttpResponse.json({ message: 'restarting' }, { status: 503 }), { once: true }));
    open();

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The webhooks could not be loaded');
    expect(alert).toHaveTextContent(/Retrying in \d+ s\./);
    expect(screen.queryByText('Loading webhooks…')).not.toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 3, name: new RegExp(`${RECEIVER.replace(/\./g, '\\.')}/ops`) })).toBeInTheDocument();
    expect(screen.queryByText('The webhooks could not be loaded')).not.toBeInTheDocument();
  });
});
