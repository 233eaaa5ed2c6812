import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { notificationsStandIn } from './notifications-stand-in';

const sim = setupSimServer();

/** Opens the screen over the stand-in; `before` sets up what the server holds (or how it fails) before the first read. */
function open(before: (standIn: ReturnType<typeof notificationsStandIn>) => void = () => undefined) {
  const standIn = notificationsStandIn();
  sim.server.use(...standIn.handlers);
  before(standIn);
  return { standIn, ...renderApp('/settings/notifications', { apiKey: sim.apiKey }) };
}

describe('Notifications screen', () => {
  it('adds a webhook and shows its signing secret once, read-only', async () => {
    const { user, standIn } = open();
    expect(await screen.findByRole('heading', { level: 1, name: 'Notifications' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Notifications' })).toHaveAttribute('href', '/settings/notifications');

    await user.type(screen.getByRole('textbox', { name: 'Webhook URL' }), 'https://hooks.example.com/ops');
    expect(screen.getByRole('checkbox', { name: 'Failed' })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Longer than usual' }));
    await user.click(screen.getByRole('checkbox', { name: 'Finished' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Format' }), 'slack');
    await user.click(screen.getByRole('button', { name: 'Add webhook' }));

    const secret = await screen.findByRole('textbox', { name: 'Signing secret' });
    expect(secret).toHaveValue('whsec_shown-once');
    expect(secret).toHaveAttribute('readonly');
    expect(standIn.webhooks).toMatchObject([{ url: 'https://hooks.example.com/ops', format: 'slack', events: ['operation.failed', 'operation.longer_than_usual', 'operation.finished'] }]);
    const item = (await screen.findByRole('heading', { level: 3, name: 'Slack webhook to https://hooks.example.com/ops' })).closest('li');
    expect(within(item as HTMLElement).getByText('Failed, Longer than usual, Finished')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Done' }));
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
    const { user, standIn } = open();
    standIn.webhooks.push({
      id: 'wh_9',
      url: 'https://hooks.example.com/down',
      format: 'json',
      scope: { kind: 'project', projectId: 'proj-1' },
      events: ['operation.failed'],
      state: 'paused',
      pausedReason: 'Paused after 20 failed deliveries in a row.',
      consecutiveFailures: 20,
      createdAt: '2026-11-22T12:00:00Z',
    });
    standIn.deliveries.set('wh_9', [
      { eventId: 'op-1:failed:1', type: 'operation.failed', projectId: 'proj-1', operationId: 'op-1', state: 'pending', attempts: 20, lastStatus: 503, lastAnswer: 'down', lastAttemptAt: '2026-11-22T12:00:00Z', nextAttemptAt: '2026-11-22T13:00:00Z', createdAt: '2026-11-22T11:00:00Z' },
    ]);

    expect(await screen.findByText('Paused after 20 failed deliveries in a row.')).toBeInTheDocument();
    const log = await screen.findByRole('table', { name: 'Delivery log: https://hooks.example.com/down' });
    expect(within(log).getByRole('row', { name: /Failed op-1 Waiting to retry .* 20 HTTP 503: down/ })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Send test to https://hooks.example.com/down' }));
    expect(await screen.findByText('Test delivered: HTTP 200 — thanks')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Resume' }));
    expect(await screen.findByText('Active')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resume' })).not.toBeInTheDocument();
  });

  it('a list the console server cannot give for a while (503) says so with a countdown, then shows by itself', async () => {
    open((standIn) => {
      standIn.webhooks.push({
        id: 'wh_1',
        url: 'https://hooks.example.com/ops',
        format: 'json',
        scope: { kind: 'all' },
        events: ['operation.failed'],
        state: 'active',
        pausedReason: null,
        consecutiveFailures: 0,
        createdAt: '2026-11-22T12:00:00Z',
      });
      sim.server.use(http.get('*/notifications/webhooks', () => HttpResponse.json({ message: 'restarting' }, { status: 503 }), { once: true }));
    });

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The webhooks could not be loaded');
    expect(alert).toHaveTextContent(/Retrying in \d+ s\./);
    expect(screen.queryByText('Loading webhooks…')).not.toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 3, name: /https:\/\/hooks\.example\.com\/ops/ })).toBeInTheDocument();
    expect(screen.queryByText('The webhooks could not be loaded')).not.toBeInTheDocument();
  });
});
