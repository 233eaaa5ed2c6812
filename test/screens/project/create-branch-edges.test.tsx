import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now(), store: true });

beforeAll(() => {
  configure({ asyncUtilTimeout: 5_000 });
  polyfillModalDialogs();
});
beforeEach(() => localStorage.setItem('ops-console.poll-interval-ms', '100'));

/** Whether leaving the page now makes the browser ask first. */
function leavingAsks(): boolean {
  const event = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(event);
  return event.defaultPrevented;
}

/** The page's "Create branch", once it can be pressed (the branches are in). */
async function createBranchButton() {
  const button = await screen.findByRole('button', { name: 'Create branch' });
  await waitFor(() => expect(button).toBeEnabled());
  return button;
}

describe('the Create branch dialog', () => {
  it('drops a 409 refusal once the name changes, and never shows it beside a new validation message', async () => {
    const project = sim.cp.addProject({ name: 'Stale refusal', ownerId: sim.seed.userId });
    sim.cp.addBranch({ projectId: project.id, name: 'dev' });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await createBranchButton());
    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    const name = within(dialog).getByLabelText('Branch name');
    await user.type(name, 'dev');
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(/already exists/);

    await user.clear(name);
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));
    expect(within(dialog).getByText('Enter a name for the new branch.')).toBeInTheDocument();
    expect(within(dialog).queryByText(/already exists/)).not.toBeInTheDocument();
  });

  it('asks before the page is left while a change waits to be sent again, and not otherwise', async () => {
    const project = sim.cp.addProject({ name: 'Queued', ownerId: sim.seed.userId });
    sim.cp.setProjectLocked(project.id, true);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await createBranchButton());
    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    expect(leavingAsks()).toBe(false);
    await user.type(within(dialog).getByLabelText('Branch name'), 'later');
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));
    await within(dialog).findByText(/The project is busy/);
    expect(leavingAsks()).toBe(true);

    sim.cp.setProjectLocked(project.id, false);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(leavingAsks()).toBe(false));
  });
});
