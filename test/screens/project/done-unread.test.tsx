import { configure, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// A change the API took (2xx) whose answer the console could not read: it happened, so the console
// says so, offers no retry (which would meet 409) and reads again what the change touched.

const sim = setupSimServer({ start: Date.now() });

beforeAll(() => {
  configure({ asyncUtilTimeout: 5_000 });
  polyfillModalDialogs();
});
beforeEach(() => localStorage.setItem('ops-console.poll-interval-ms', '100'));

async function rowOf(branchName: string) {
  const table = await screen.findByRole('table', { name: 'Branches and computes' });
  return within(table).queryByRole('rowheader', { name: new RegExp(`^${branchName}`) });
}

/** The page's "Create branch", once it can be pressed (the branches are in). */
async function createBranchButton() {
  const button = await screen.findByRole('button', { name: 'Create branch' });
  await waitFor(() => expect(button).toBeEnabled());
  return button;
}

describe('a change whose 2xx answer cannot be read', () => {
  it('says the branch was created, offers no retry, and refreshes the branches', async () => {
    const project = sim.cp.addProject({ name: 'Unread', ownerId: sim.seed.userId });
    sim.server.use(
      http.post(
        `*/api/v2/projects/${project.id}/branches`,
        () => {
          // The platform made the branch; the answer was mangled on the way (a proxy's HTML, say).
          sim.cp.addBranch({ projectId: project.id, name: 'dev' });
          return new HttpResponse('<html>Created</html>', { status: 201, headers: { 'Content-Type': 'text/html' } });
        },
        { once: true },
      ),
    );
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await createBranchButton());
    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    await user.type(within(dialog).getByLabelText('Branch name'), 'dev');
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('The branch was created, but its details could not be read.');
    expect(alert).not.toHaveTextContent('Could not create');
    expect(within(alert).queryByRole('button', { name: /Retry|Try again/ })).not.toBeInTheDocument();
    // The list is read again, so the new branch shows without a reload.
    await waitFor(async () => expect(await rowOf('dev')).toBeInTheDocument());
  });

  it('says the compute was started and refreshes the computes, with the same mechanism', async () => {
    const project = sim.cp.addProject({ name: 'Unread start', ownerId: sim.seed.userId, compute: 'idle' });
    const endpointId = project.endpointId ?? '';
    sim.server.use(
      http.post(`*/api/v2/projects/${project.id}/endpoints/${endpointId}/start`, () => HttpResponse.json({ operations: 'garbled' }), { once: true }),
    );
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const row = (await rowOf('main'))?.closest('tr');
    if (!row) throw new Error('no main row');
    await user.click(within(row).getByRole('button', { name: `Start compute ${endpointId}` }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The compute was started, but the details could not be read.');
    expect(within(alert).queryByRole('button')).not.toBeInTheDocument();
  });
});
