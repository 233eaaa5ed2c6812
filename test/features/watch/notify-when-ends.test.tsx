import { configure, screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { notificationsStandIn } from '../../screens/notifications/notifications-stand-in';

const sim = setupSimServer();
beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

async function watchRunningOperation() {
  const project = sim.cp.addProject({ name: 'Tray', ownerId: sim.seed.userId, compute: false });
  const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 600_000, fail: false, startAs: 'running' });
  const standIn = notificationsStandIn();
  sim.server.use(...standIn.handlers);
  const rendered = renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
  await rendered.user.click(await screen.findByRole('button', { name: /^Watch Apply config / }));
  const tray = screen.getByRole('complementary', { name: 'Watched operations' });
  const item = (await within(tray).findByRole('link', { name: 'Apply config' })).closest('li') as HTMLElement;
  return { ...rendered, project, op, standIn, item };
}

describe('"Notify me when it ends" in the watch tray', () => {
  it('asks the server to send the end of the operation to the webhooks, and says so', async () => {
    const { user, project, op, standIn, item } = await watchRunningOperation();
    standIn.webhooks.push({ id: 'wh_1', url: 'https://hooks.example.com/x', format: 'json', scope: { kind: 'all' }, events: ['operation.failed'], state: 'active', pausedReason: null, consecutiveFailures: 0, createdAt: '2026-11-22T12:00:00Z' });

    await user.click(within(item).getByRole('button', { name: 'Notify me when it ends' }));

    expect(await within(item).findByRole('status')).toHaveTextContent('Its end goes to your webhook, even with this tab closed.');
    expect(standIn.watches).toEqual([{ projectId: project.id, operationId: op.id }]);
  });

  it('points to Notifications when there is no webhook to send to', async () => {
    const { user, item } = await watchRunningOperation();

    await user.click(within(item).getByRole('button', { name: 'Notify me when it ends' }));

    expect(await within(item).findByRole('alert')).toHaveTextContent('No webhook to send it to');
    expect(within(item).getByRole('link', { name: 'add one in Notifications' })).toHaveAttribute('href', '/settings/notifications');
  });
});
