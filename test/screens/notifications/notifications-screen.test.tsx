import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { WebhookFormat, WebhookScope } from '../../../src/api/notification-schemas';
import { DISABLED_GONE_REASON } from '../../../server/notify/delivery-worker';
import { newWebhookSecret } from '../../../server/notify/signature';
import { enqueueDelivery, recordAttempt } from '../../../server/store/deliveries';
import { insertWebhook, pauseWebhook } from '../../../server/store/webhooks';
import { fingerprintOf, serverSeal } from '../../support/console-server';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { RETRY_SAID } from '../../support/retry-said';

// The Notifications screen against the console server's own /notifications routes, on its store. Webhooks
// go only to public addresses here (no WEBHOOK_ALLOW_PRIVATE): the receivers are public addresses written as
// IP literals, since nothing is resolved on these machines, and MSW answers them (nothing leaves the process).

const sim = setupSimServer({ store: true });
polyfillModalDialogs();
const RECEIVER = 'https://93.184.215.14';

let made = 0;

/** A webhook made with the session's key, written through the store's own module, as the server keeps one. */
async function keepWebhook(
  url: string,
  {
    format = 'json',
    scope = { kind: 'all' },
    events = ['operation.failed'],
  }: { format?: WebhookFormat; scope?: WebhookScope; events?: ('operation.failed' | 'operation.finished')[] } = {},
) {
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

    expect(await screen.findByRole('alert')).toHaveTextContent(/loopback, private or reserved address .*WEBHOOK_ALLOW_PRIVATE=1/);
    expect(screen.getByRole('textbox', { name: 'Webhook URL' })).toHaveAttribute('aria-invalid', 'true');
  });

  /** The delivery of a failed operation's event that the receiver answered with `status` at `at`, recorded as the delivery worker records one. */
  async function recordDelivery(
    db: Awaited<ReturnType<typeof sim.console.db>>,
    {
      webhookId,
      failed,
      projectName,
      status,
      answer,
      at,
    }: { webhookId: string; failed: { id: string; project_id: string }; projectName: string; status: number; answer: string; at: Date },
  ) {
    const eventId = `${failed.id}:failed:1`;
    // In one transaction: queued alone, the delivery is due at once, and the worker could send it before its attempt is recorded.
    await db.transaction(async (tx) => {
      await enqueueDelivery(tx, {
        webhookId,
        eventId,
        type: 'operation.failed',
        projectId: failed.project_id,
        operationId: failed.id,
        occurredAt: at,
        operation: { ...failed },
        now: at,
      });
      const [delivery] = (await tx.query<{ id: string }>('SELECT id FROM notify_deliveries WHERE webhook_id = $1 AND event_id = $2', [webhookId, eventId]))
        .rows;
      const body = JSON.stringify({ id: eventId, type: 'operation.failed', project: { id: failed.project_id, name: projectName } });
      await recordAttempt(tx, {
        id: delivery?.id ?? '',
        state: status < 300 ? 'delivered' : 'failed',
        attempted: true,
        status,
        answer,
        at,
        nextAttemptAt: null,
        visible: true,
        sent: { projectName, body, durationMs: 1_250 },
      });
    });
  }

  /** A failed operation of a new project, and a webhook about that project whose delivery of its failure the receiver answered with `status`. */
  async function deliveredOnce(url: string, status: number, answer: string) {
    const project = sim.cp.addProject({ name: 'Webhook target', ownerId: sim.seed.userId, compute: false });
    const failed = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'failed' });
    const hook = await keepWebhook(url, { scope: { kind: 'project', projectId: project.id } });
    const db = await sim.console.db();
    await recordDelivery(db, { webhookId: hook.id, failed, projectName: 'Webhook target', status, answer, at: new Date(Date.now() - 60 * 60_000) });
    return { hook, failed, db };
  }

  it('says why a webhook is paused (a 410 disabled it), and its delivery log shows project, action, result, status code, duration, the payload and the answer; Resume, Send test', async () => {
    const url = `${RECEIVER}/gone`;
    sim.server.use(http.post(url, () => HttpResponse.text('thanks')));
    const { hook, failed, db } = await deliveredOnce(url, 410, 'this hook was removed');
    await pauseWebhook(db, hook.id, DISABLED_GONE_REASON);

    const { user } = open();
    expect(await screen.findByText(DISABLED_GONE_REASON)).toBeInTheDocument();
    const log = await screen.findByRole('table', { name: `Delivery log: ${url}` });
    expect(
      within(log)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['When', 'Project', 'Action', 'Event', 'Result', 'Status code', 'Duration', 'Payload and actions']);
    const row = within(log).getByRole('row', { name: /Webhook target Apply config Failed .*Failed 410 1\.2 s/ });
    expect(within(row).getByRole('link', { name: 'Apply config' })).toHaveAttribute('href', `/projects/${failed.project_id}/operations/${failed.id}`);
    // The paused webhook's events go out with Resume, not one by one.
    expect(within(row).queryByRole('button', { name: 'Redeliver' })).not.toBeInTheDocument();
    const toggle = within(row).getByRole('button', { name: 'Payload and answer' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const details = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
    expect(within(details as HTMLElement).getByText(/"name": "Webhook target"/)).toBeVisible();
    expect(within(details as HTMLElement).getByText('this hook was removed')).toBeVisible();

    await user.click(screen.getByRole('button', { name: `Send test to ${url}` }));
    // The log lists events only, and the answer says so rather than sit above a log without the test in it.
    expect(await screen.findByText('Test delivered: HTTP 200 — thanks. Tests are not kept in the delivery log.')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Resume' }));
    expect(await screen.findByText('Active')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resume' })).not.toBeInTheDocument();
  });

  it('"Redeliver" sends an event of the log again and says so', async () => {
    const url = `${RECEIVER}/missing-route`;
    sim.server.use(http.post(url, () => HttpResponse.text('ok now')));
    const { failed } = await deliveredOnce(url, 404, 'no such route');

    const { user } = open();
    const log = await screen.findByRole('table', { name: `Delivery log: ${url}` });
    const redeliver = within(log).getByRole('button', { name: 'Redeliver' });
    expect(redeliver).toHaveAccessibleDescription(`Failed event of operation ${failed.id}`);
    await user.click(redeliver);
    expect(await screen.findByText(`Event ${failed.id}:failed:1 is queued again: it is sent within a few seconds.`)).toBeInTheDocument();
  });

  it('after "Redeliver" shows the redelivery’s result once the receiver had it, without waiting for the log’s next 10 s read', async () => {
    const url = `${RECEIVER}/flaky-route`;
    const { failed } = await deliveredOnce(url, 500, 'try later');
    // The receiver takes it this time.
    sim.server.use(http.post(url, () => HttpResponse.text('thanks')));
    const { user } = open();
    const log = await screen.findByRole('table', { name: `Delivery log: ${url}` });
    const row = within(log).getByRole('row', { name: /Webhook target/ });
    expect(within(row).getByText('Failed', { selector: '.status' })).toBeInTheDocument();
    await user.click(within(row).getByRole('button', { name: 'Redeliver' }));
    expect(await screen.findByText(`Event ${failed.id}:failed:1 is queued again: it is sent within a few seconds.`)).toBeInTheDocument();
    // Well before the log's own next read (10 s after the last).
    await waitFor(() => expect(within(log).getByText('Delivered', { selector: '.status' })).toBeInTheDocument(), { timeout: 5_000 });
    expect(within(log).getByRole('row', { name: /Webhook target/ })).toHaveTextContent(/Delivered.*200/);
  });

  it('shows the newest 100 deliveries, and "Show older deliveries" the rest of a longer log, each once, newest first', async () => {
    const url = `${RECEIVER}/busy`;
    const project = sim.cp.addProject({ name: 'Busy target', ownerId: sim.seed.userId, compute: false });
    const hook = await keepWebhook(url, { scope: { kind: 'project', projectId: project.id } });
    const db = await sim.console.db();
    // 130 events the receiver refused for good, as the delivery worker records them: more than a page of the log.
    const oldestFirst: string[] = [];
    for (let n = 0; n < 130; n++) {
      const failed = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'failed' });
      await recordDelivery(db, {
        webhookId: hook.id,
        failed,
        projectName: 'Busy target',
        status: 400,
        answer: 'no',
        at: new Date(Date.now() - (130 - n) * 60_000),
      });
      oldestFirst.push(failed.id);
    }
    const newestFirst = [...oldestFirst].reverse();
    // Each row's operation, from its Action link (plain selectors: role queries over 130 rows are slow in jsdom).
    const shown = (log: HTMLElement) => [...log.querySelectorAll('td[data-label="Action"] a')].map((link) => link.getAttribute('href')?.split('/').pop());

    const { user } = open();
    const log = await screen.findByRole('table', { name: `Delivery log: ${url}` });
    expect(shown(log)).toEqual(newestFirst.slice(0, 100));
    await user.click(screen.getByRole('button', { name: 'Show older deliveries' }));
    await waitFor(() => expect(shown(log)).toHaveLength(130));
    expect(shown(log)).toEqual(newestFirst);
    expect(screen.queryByRole('button', { name: 'Show older deliveries' })).not.toBeInTheDocument();
  });

  it('asks before deleting a webhook; Cancel keeps it', async () => {
    const url = `${RECEIVER}/to-delete`;
    await keepWebhook(url);
    const { user } = open();
    await user.click(await screen.findByRole('button', { name: `Delete webhook to ${url}` }));
    const dialog = screen.getByRole('alertdialog', { name: `Delete the webhook to ${url}?` });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 3, name: `JSON webhook to ${url}` })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: `Delete webhook to ${url}` }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete webhook' }));
    expect(await screen.findByText('No webhooks yet.')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('a list the console server cannot give for a while (503) says so with a countdown, then shows by itself', async () => {
    await keepWebhook(`${RECEIVER}/ops`);
    sim.server.use(http.get('*/notifications/webhooks', () => HttpResponse.json({ message: 'restarting' }, { status: 503 }), { once: true }));
    open();

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The webhooks could not be loaded');
    expect(alert).toHaveTextContent(RETRY_SAID);
    expect(screen.queryByText('Loading webhooks…')).not.toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 3, name: new RegExp(`${RECEIVER.replace(/\./g, '\\.')}/ops`) })).toBeInTheDocument();
    expect(screen.queryByText('The webhooks could not be loaded')).not.toBeInTheDocument();
  });
});
