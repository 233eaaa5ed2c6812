import { configure, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { elapse, withFakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now(), store: true });

/** A tray entry's links to operations (its "Notify me" may add one to the Notifications page). */
const operationLinks = (element: HTMLElement) =>
  within(element)
    .getAllByRole('link')
    .filter((a) => a.getAttribute('href')?.includes('/operations/'));
withFakeConsoleClock();
const MINUTE = 60_000;

interface SentRequest {
  method: string;
  path: string;
  body: Promise<string>;
}

let sent: SentRequest[] = [];

beforeAll(() => {
  // Role queries over a polled page are slow in jsdom on a busy machine: give finds more time.
  configure({ asyncUtilTimeout: 5_000 });
  polyfillModalDialogs();
});

beforeEach(() => {
  // Polls and 423 retries every 100 ms (the retry base is the poll interval, capped): quick tests.
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  sent = [];
  sim.onPageRequest((request) => {
    sent.push({ method: request.method, path: new URL(request.url).pathname, body: request.clone().text() });
  });
});
afterEach(() => sim.server.events.removeAllListeners());

const changes = (path: string) => sent.filter((r) => r.method !== 'GET' && r.path === `/api/v2${path}`);

function panel() {
  return screen.getByRole('complementary', { name: 'Watched operations' });
}

/** The panel's group for one request: its heading and the operations under it. */
async function watchedGroup(title: string) {
  const heading = await within(panel()).findByRole('heading', { name: title });
  const group = heading.closest('li');
  if (!group) throw new Error(`${title} is not a group`);
  return group;
}

async function branchesTable() {
  return screen.findByRole('table', { name: 'Branches and computes' });
}

async function rowOf(branchName: string) {
  const table = await branchesTable();
  const row = within(table)
    .getByRole('rowheader', { name: new RegExp(`^${branchName}`) })
    .closest('tr');
  if (!row) throw new Error(`no row for ${branchName}`);
  return row;
}

function projectWithCompute(name = 'Actions', compute: 'idle' | 'active' = 'idle') {
  const project = sim.cp.addProject({ name, ownerId: sim.seed.userId, compute });
  if (!project.endpointId) throw new Error('the project has no compute');
  return { ...project, endpointId: project.endpointId };
}

describe('branches and computes', () => {
  it('lists branches with parent, compute and its state in a real table, offering Delete only where allowed', async () => {
    const project = projectWithCompute('Listing');
    const dev = sim.cp.addBranch({ projectId: project.id, name: 'dev', compute: 'active' });
    sim.cp.addBranch({ projectId: project.id, name: 'preview', parentId: dev.id });

    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const table = await branchesTable();
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Branch', 'Parent', 'Compute', 'Compute state', 'Actions']);
    const main = await rowOf('main');
    expect(
      within(main)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['—', project.endpointId, 'Idle', expect.any(String)]);
    expect(within(main).queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    expect(within(main).getByRole('button', { name: `Suspend compute ${project.endpointId}` })).toBeDisabled();

    const devRow = await rowOf('dev');
    expect(devRow).toHaveTextContent('Active');
    expect(devRow).toHaveTextContent('Has child branches');
    expect(within(devRow).queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    const previewRow = await rowOf('preview');
    expect(within(previewRow).getAllByRole('cell')[0]).toHaveTextContent('dev');
    expect(previewRow).toHaveTextContent('No compute');
    expect(within(previewRow).getByRole('button', { name: 'Delete branch preview' })).toBeEnabled();
  });

  it('creates a branch with a compute and watches both operations it started, grouped under the request', async () => {
    const project = projectWithCompute('Creating');
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await branchesTable();
    const open = screen.getByRole('button', { name: 'Create branch' });
    await user.click(open);

    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    expect(within(dialog).getByLabelText('Branch name')).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));
    expect(within(dialog).getByText('Enter a name for the new branch.')).toBeInTheDocument();
    expect(changes(`/projects/${project.id}/branches`)).toHaveLength(0);

    await user.type(within(dialog).getByLabelText('Branch name'), 'dev');
    expect(within(dialog).getByLabelText('Parent branch')).toHaveDisplayValue('main (default)');
    expect(within(dialog).getByRole('checkbox', { name: /With a read-write compute/ })).toBeChecked();
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));

    const group = await watchedGroup('Create branch dev: 2 operations');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(open).toHaveFocus();
    const [post] = changes(`/projects/${project.id}/branches`);
    expect(JSON.parse(await post!.body)).toEqual({
      branch: { name: 'dev', parent_id: project.defaultBranchId },
      endpoints: [{ type: 'read_write' }],
    });
    expect(operationLinks(group).map((a) => a.textContent)).toEqual(['Create branch', 'Start compute']);
    expect(group).toHaveTextContent(/Creating · dev/);
    expect(screen.getByText('Create branch dev: 2 operations started.')).toBeInTheDocument();
    expect(await rowOf('dev')).toHaveTextContent('main');

    sim.clock.advance(MINUTE);
    await waitFor(() => expect(within(group).getAllByText('OK')).toHaveLength(2));
    // The compute's new state shows once its start has ended.
    await waitFor(async () => expect(await rowOf('dev')).toHaveTextContent('Active'));
  });

  it('creates a branch without a compute from another parent: one operation', async () => {
    const project = projectWithCompute('Without compute');
    const dev = sim.cp.addBranch({ projectId: project.id, name: 'dev' });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await branchesTable();
    await user.click(screen.getByRole('button', { name: 'Create branch' }));
    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    await user.type(within(dialog).getByLabelText('Branch name'), 'feature');
    await user.selectOptions(within(dialog).getByLabelText('Parent branch'), 'dev');
    await user.click(within(dialog).getByRole('checkbox', { name: /With a read-write compute/ }));
    // Enter in the name field submits, as in any form.
    await user.type(within(dialog).getByLabelText('Branch name'), '{Enter}');

    const group = await watchedGroup('Create branch feature: 1 operation');
    expect(operationLinks(group).map((a) => a.textContent)).toEqual(['Create branch']);
    const [post] = changes(`/projects/${project.id}/branches`);
    expect(JSON.parse(await post!.body)).toEqual({ branch: { name: 'feature', parent_id: dev.id } });
  });

  it('deletes a branch after confirmation and watches the suspend and the deletion', async () => {
    const project = projectWithCompute('Deleting');
    const feature = sim.cp.addBranch({ projectId: project.id, name: 'feature', compute: 'active' });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(within(await rowOf('feature')).getByRole('button', { name: 'Delete branch feature' }));

    const dialog = screen.getByRole('alertdialog', { name: 'Delete branch “feature”?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    expect(dialog).toHaveTextContent(/suspended first/);
    await user.click(within(dialog).getByRole('button', { name: 'Delete branch' }));

    const group = await watchedGroup('Delete branch feature: 2 operations');
    expect(operationLinks(group).map((a) => a.textContent)).toEqual(['Suspend compute', 'Delete timeline']);
    expect(changes(`/projects/${project.id}/branches/${feature.id}`).map((r) => r.method)).toEqual(['DELETE']);
    await waitFor(async () => expect(within(await branchesTable()).queryByRole('rowheader', { name: /^feature/ })).not.toBeInTheDocument());
  });

  it('starts a compute at once, and suspends and restarts it after confirmation, watching what each started', async () => {
    const project = projectWithCompute('Computes');
    const compute = project.endpointId;
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    await user.click(within(await rowOf('main')).getByRole('button', { name: `Start compute ${compute}` }));
    const started = await watchedGroup(`Start compute ${compute}: 1 operation`);
    expect(changes(`/projects/${project.id}/endpoints/${compute}/start`)).toHaveLength(1);
    sim.clock.advance(MINUTE);
    await waitFor(() => expect(within(started).getByText('OK')).toBeInTheDocument());
    await waitFor(async () => expect(await rowOf('main')).toHaveTextContent('Active'));

    await user.click(within(await rowOf('main')).getByRole('button', { name: `Suspend compute ${compute}` }));
    const confirmSuspend = screen.getByRole('alertdialog', { name: `Suspend compute ${compute}?` });
    await user.click(within(confirmSuspend).getByRole('button', { name: 'Suspend' }));
    const suspended = await watchedGroup(`Suspend compute ${compute}: 1 operation`);
    expect(operationLinks(suspended)).toHaveLength(1);
    expect(operationLinks(suspended)[0]).toHaveTextContent('Suspend compute');
    sim.clock.advance(MINUTE);
    await waitFor(() => expect(within(suspended).getByText('OK')).toBeInTheDocument());
    await waitFor(async () => expect(await rowOf('main')).toHaveTextContent('Idle'));

    // Cancel asks nothing of the API.
    await user.click(within(await rowOf('main')).getByRole('button', { name: `Restart compute ${compute}` }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Cancel' }));
    expect(changes(`/projects/${project.id}/endpoints/${compute}/restart`)).toHaveLength(0);

    await user.click(within(await rowOf('main')).getByRole('button', { name: `Restart compute ${compute}` }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Restart' }));
    const restarted = await watchedGroup(`Restart compute ${compute}: 1 operation`);
    expect(operationLinks(restarted)).toHaveLength(1);
    expect(operationLinks(restarted)[0]).toHaveTextContent('Start compute');
  });
});

describe('a restart of a running compute', () => {
  it('reads Suspending… while its suspend half runs, and its status line says when both operations have ended', async () => {
    const project = projectWithCompute('Restarting', 'active');
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const compute = project.endpointId;
    await waitFor(async () => expect(await rowOf('main')).toHaveTextContent('Active'));

    await user.click(within(await rowOf('main')).getByRole('button', { name: `Restart compute ${compute}` }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Restart' }));
    await watchedGroup(`Restart compute ${compute}: 2 operations`);
    const status = () => screen.getByText(new RegExp(`^Restart compute ${compute}: 2 operations started`));
    // The compute heads for active, but what runs now is its suspend.
    await waitFor(async () => expect(await rowOf('main')).toHaveTextContent('Suspending…'));
    expect(await rowOf('main')).not.toHaveTextContent('Starting…');
    expect(status()).toHaveTextContent(/started\.$/);

    sim.clock.advance(MINUTE);
    sim.clock.advance(MINUTE);
    await waitFor(() => expect(status()).toHaveTextContent(`Restart compute ${compute}: 2 operations started; all have ended.`));
  });
});

describe('a compute’s state', () => {
  it('reads forward through a restart, Suspending… then Starting… then Active, never back and never Idle between', async () => {
    const project = projectWithCompute('Restarting in steps', 'active');
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const compute = project.endpointId;
    await waitFor(async () => expect(await rowOf('main')).toHaveTextContent('Active'));
    // Every state the cell shows, however briefly: each change of its text, as the DOM makes it.
    const cell = within(await rowOf('main')).getByText('Active');
    const shown: string[] = ['Active'];
    const observer = new MutationObserver(() => {
      const text = cell.textContent;
      if (shown.at(-1) !== text) shown.push(text);
    });
    observer.observe(cell, { childList: true, characterData: true, subtree: true });

    await user.click(within(await rowOf('main')).getByRole('button', { name: `Restart compute ${compute}` }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Restart' }));
    await watchedGroup(`Restart compute ${compute}: 2 operations`);
    // The platform's half-seconds, each one read by the page's polls before the next.
    for (let step = 0; step < 30 && !screen.queryByText(/2 operations started; all have ended\./); step++) {
      sim.clock.advance(500);
      await elapse(300);
    }
    await waitFor(() => expect(screen.getByText(/2 operations started; all have ended\./)).toBeInTheDocument());
    await waitFor(() => expect(shown.at(-1)).toBe('Active'));
    observer.disconnect();
    expect(shown).toEqual(['Active', 'Suspending…', 'Starting…', 'Active']);
  });
});

describe('when the project is busy or the change is refused', () => {
  it('waits out a 423 while a conflicting operation runs, naming it, and goes through once it ends', async () => {
    const project = projectWithCompute('Busy');
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 10 * MINUTE, fail: false, startAs: 'running' });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    expect(await screen.findByText(/An operation is running in this project/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create branch' }));
    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    await user.type(within(dialog).getByLabelText('Branch name'), 'later');
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));

    expect(await within(dialog).findByText(/The project is busy: waiting for Apply config \(In progress\) to finish/)).toBeInTheDocument();
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    sim.clock.advance(11 * MINUTE);

    await watchedGroup('Create branch later: 2 operations');
    expect(changes(`/projects/${project.id}/branches`).length).toBeGreaterThanOrEqual(2);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('names a conflicting operation started elsewhere after the page loaded, refreshing the newest page once', async () => {
    const project = projectWithCompute('Started elsewhere');
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const startButton = within(await rowOf('main')).getByRole('button', { name: `Start compute ${project.endpointId}` });
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 10 * MINUTE, fail: false, startAs: 'running' });
    await user.click(startButton);

    expect(await screen.findByText(/The project is busy: waiting for Apply config \(In progress\) to finish/)).toBeInTheDocument();
    expect(screen.getByText(/An operation is running in this project/)).toBeInTheDocument();
    sim.clock.advance(11 * MINUTE);
    await watchedGroup(`Start compute ${project.endpointId}: 1 operation`);
  });

  it.each([
    [429, 'Rate limited by the API (429).'],
    [503, 'The server is busy (503).'],
  ])('waits out a %i (refused before anything changed), says so, and sends the change again', async (status, problem) => {
    const project = projectWithCompute(`Refused ${status}`);
    const path = `/projects/${project.id}/endpoints/${project.endpointId}/start`;
    sim.server.use(
      http.post(`*/api/v2${path}`, () => HttpResponse.json({ code: '', message: 'not now' }, { status, headers: { 'Retry-After': '1' } }), {
        once: true,
      }),
    );
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(within(await rowOf('main')).getByRole('button', { name: `Start compute ${project.endpointId}` }));

    expect(await screen.findByText(`${problem} Waiting to send it again.`)).toBeInTheDocument();
    expect(screen.getByText(/Nothing has been changed yet\./)).toBeInTheDocument();
    await watchedGroup(`Start compute ${project.endpointId}: 1 operation`);
    expect(changes(path)).toHaveLength(2);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('stops after five tries and offers a manual retry, which goes through once the project is free', async () => {
    const project = projectWithCompute('Locked');
    sim.cp.setProjectLocked(project.id, true);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(within(await rowOf('main')).getByRole('button', { name: `Start compute ${project.endpointId}` }));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Still busy after 5 tries');
    expect(alert).toHaveTextContent(`project ${project.id} is locked`);
    expect(changes(`/projects/${project.id}/endpoints/${project.endpointId}/start`)).toHaveLength(5);

    sim.cp.setProjectLocked(project.id, false);
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await watchedGroup(`Start compute ${project.endpointId}: 1 operation`);
    expect(changes(`/projects/${project.id}/endpoints/${project.endpointId}/start`)).toHaveLength(6);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('stops waiting when the dialog is cancelled: no further tries', async () => {
    const project = projectWithCompute('Cancelled');
    sim.cp.setProjectLocked(project.id, true);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    // A person presses it once the page enables it (the branches are in).
    const create = await screen.findByRole('button', { name: 'Create branch' });
    await waitFor(() => expect(create).toBeEnabled());
    await user.click(create);
    const dialog = screen.getByRole('dialog', { name: 'Create branch' });
    await user.type(within(dialog).getByLabelText('Branch name'), 'never');
    await user.click(within(dialog).getByRole('button', { name: 'Create branch' }));
    await within(dialog).findByText(/The project is busy/);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    // A try already on its way may land; none goes out after it, for the next minute of the console's time.
    const tries = changes(`/projects/${project.id}/branches`).length;
    await elapse(60_000);
    expect(changes(`/projects/${project.id}/branches`).length).toBeLessThanOrEqual(tries + 1);
    expect(within(panel()).queryByRole('heading', { name: /Create branch never/ })).not.toBeInTheDocument();
  });

  it("shows the API's message on a 409 and starts nothing", async () => {
    const project = projectWithCompute('Conflict');
    const parent = sim.cp.addBranch({ projectId: project.id, name: 'parent' });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(within(await rowOf('parent')).getByRole('button', { name: 'Delete branch parent' }));
    // A child appears after the page loaded: the API refuses the deletion.
    sim.cp.addBranch({ projectId: project.id, name: 'child', parentId: parent.id });
    const dialog = screen.getByRole('alertdialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete branch' }));

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('Could not delete the branch.');
    expect(alert).toHaveTextContent(`branch ${parent.id} has child branches; delete them first`);
    expect(alert).toHaveTextContent(/Request id/);
    expect(within(alert).queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(changes(`/projects/${project.id}/branches/${parent.id}`)).toHaveLength(1);
    expect(panel()).toHaveTextContent('Nothing watched yet.');
  });
});
