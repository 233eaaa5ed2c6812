import { configure, screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../../server/notify/signature';
import { insertWebhook, listWatches } from '../../../server/store/webhooks';
import { fingerprintOf, serverSeal } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// "Notify me when it ends" against the console server's own POST /notifications/watches, on its store.

const sim = setupSimServer({ store: true });
beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

async function watchRunningOperation() {
  const project = sim.cp.addProject({ name: 'Tray', ownerId: sim.seed.userId, compute: false });
  const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 600_000, fail: false, startAs: 'running' });
  const rendered = renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
  await rendered.user.click(await screen.findByRole('button', { name: /^Watch Apply config / }));
  const tray = screen.getByRole('complementary', { name: 'Watched operations' });
  const item = (await within(tray).findByRole('link', { name: 'Apply config' })).closest('li') as HTMLElement;
  return { ...rendered, project, op, item };
}

describe('"Notify me when it ends" in the watch tray', () => {
  it('asks the server to send the end of the operation to the webhooks, and says so', async () => {
    const { user, project, op, item } = await watchRunningOperation();
    // A webhook the session's key made, as the server keeps it.
    const db = await sim.console.db();
    await insertWebhook(db, {
      id: 'wh_1',
      ownerFingerprint: fingerprintOf(sim.apiKey),
      ownerKeySealed: serverSeal.seal('owner-key', sim.apiKey),
      url: 'https://93.184.215.14/x',
      format: 'json',
      scope: { kind: 'all' },
      events: ['operation.failed'],
      secretSealed: serverSeal.seal('webhook-secret', newWebhookSecret()),
      createdAt: new Date(),
    });

    await user.click(within(item).getByRole('button', { name: 'Notify me when it ends' }));

    expect(await within(item).findByRole('status')).toHaveTextContent('Its end goes to your webhook, even with this tab closed.');
    expect((await listWatches(db, fingerprintOf(sim.apiKey))).map((w) => ({ projectId: w.project_id, operationId: w.operation_id }))).toEqual([{ projectId: project.id, operationId: op.id }]);
  });

  it('points to Notifications when there is no webhook to send to', async () => {
    const { user, item } = await watchRunningOperation();

    await user.click(within(item).getByRole('button', { name: 'Notify me when it ends' }));

    expect(await within(item).findByRole('alert')).toHaveTextContent('No webhook to send it to');
    expect(within(item).getByRole('link', { name: 'add one in Notifications' })).toHaveAttribute('href', '/settings/notifications');
  });
});
