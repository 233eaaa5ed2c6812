import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { newWebhookSecret } from '../../../server/notify/signature';
import { insertWebhook, listWatches } from '../../../server/store/webhooks';
import { fingerprintOf, serverSeal } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// "Notify me when it ends" against the console server's own POST /notifications/watches, on its store.

const sim = setupSimServer({ store: true });
beforeAll(() => {
  // An operation's page asks the archive what it covers first: in this file the store is there, so the first page opens it (PGlite).
  configure({ asyncUtilTimeout: 10_000 });
  polyfillModalDialogs();
});

/** A webhook the session's key made, as the server keeps it. */
async function addWebhook() {
  const db = await sim.console.db();
  await insertWebhook(db, {
    id: `wh_${Math.random().toString(36).slice(2)}`,
    ownerFingerprint: fingerprintOf(sim.apiKey),
    ownerKeySealed: serverSeal.seal('owner-key', sim.apiKey),
    url: 'https://93.184.215.14/x',
    format: 'json',
    scope: { kind: 'all' },
    events: ['operation.failed'],
    secretSealed: serverSeal.seal('webhook-secret', newWebhookSecret()),
    createdAt: new Date(),
  });
  return db;
}

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
    const db = await addWebhook();
    const { user, project, op, item } = await watchRunningOperation();

    await user.click(within(item).getByRole('button', { name: 'Notify me when it ends' }));

    expect(await within(item).findByRole('status')).toHaveTextContent('Its end goes to your webhook, even with this tab closed.');
    expect((await listWatches(db, fingerprintOf(sim.apiKey))).map((w) => ({ projectId: w.project_id, operationId: w.operation_id }))).toEqual([
      { projectId: project.id, operationId: op.id },
    ]);
  });

  it('says it needs a webhook before it is pressed, once in the tray however many offer it, and points to Notifications', async () => {
    const project = sim.cp.addProject({ name: 'Two in flight', ownerId: sim.seed.userId, compute: false });
    for (let n = 0; n < 2; n++) sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 600_000, fail: false, startAs: 'running' });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const watch = await screen.findAllByRole('button', { name: /^Watch Apply config / });
    expect(watch).toHaveLength(2);
    for (const button of watch) await user.click(button);
    const tray = screen.getByRole('complementary', { name: 'Watched operations' });
    await waitFor(() => expect(within(tray).getAllByRole('link', { name: 'Apply config' })).toHaveLength(2));

    const notify = within(tray).getAllByRole('button', { name: 'Notify me when it ends' });
    expect(notify).toHaveLength(2);
    await waitFor(() => expect(notify.every((button) => (button as HTMLButtonElement).disabled)).toBe(true));
    for (const button of notify) expect(button).toHaveAccessibleDescription('No webhook to send an operation’s end to: add one in Notifications.');
    expect(within(tray).getAllByText(/No webhook to send/)).toHaveLength(1);
    expect(within(tray).getByRole('link', { name: 'add one in Notifications' })).toHaveAttribute('href', '/settings/notifications');
    expect(within(tray).queryByRole('alert')).toBeNull();
  });

  it('is offered once for a request that started several operations, and sends the end of the request’s last one', async () => {
    const project = sim.cp.addProject({ name: 'Restart tray', ownerId: sim.seed.userId, compute: 'active' });
    const compute = project.endpointId ?? '';
    const db = await addWebhook();
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await screen.findByRole('button', { name: `Restart compute ${compute}` }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Restart' }));
    const tray = screen.getByRole('complementary', { name: 'Watched operations' });
    const group = (await within(tray).findByRole('heading', { name: `Restart compute ${compute}: 2 operations` })).closest('li') as HTMLElement;

    const [notify, ...more] = within(group).getAllByRole('button', { name: 'Notify me when it ends' });
    expect(more).toHaveLength(0);
    await user.click(notify as HTMLElement);

    expect(await within(group).findByRole('status')).toHaveTextContent('Its end goes to your webhook, even with this tab closed.');
    const started = sim.cp.operationsOf(project.id).filter((op) => op.endpoint_id === compute);
    const start = started.find((op) => op.action === 'start_compute');
    expect((await listWatches(db, fingerprintOf(sim.apiKey))).filter((w) => w.project_id === project.id).map((w) => w.operation_id)).toEqual([start?.id]);
  });
});
