import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { elapse, withFakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// A `failed` operation is in flight only while the platform may still retry it (a retry ahead, or a
// status change in the last 15 minutes); an old one is Error and final everywhere (docs/platform-api.md).

const sim = setupSimServer({ start: Date.now() });
withFakeConsoleClock();
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const INTERVAL_MS = 100;

let requests: URL[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', String(INTERVAL_MS));
  requests = [];
  sim.onPageRequest((request) => {
    requests.push(new URL(request.url));
  });
});
afterEach(() => sim.server.events.removeAllListeners());

const operationRequests = (projectId: string) => requests.filter((u) => u.pathname.startsWith(`/api/v2/projects/${projectId}/operations`));

/** A project whose history holds one failed operation, its status changed `ago` ms ago (its retry was due a minute later). */
function projectWithFailure(ago: number) {
  const project = sim.cp.addProject({ name: 'Failures', ownerId: sim.seed.userId, compute: false });
  const op = sim.cp.addOperation({
    projectId: project.id,
    action: 'suspend_compute',
    status: 'failed',
    createdAt: sim.clock.now() - ago,
    error: 'pod termination timed out',
  });
  return { project, op };
}

async function statusCell() {
  const table = await screen.findByRole('table', { name: /operations/i });
  return within(table).getAllByRole('row')[1]!.querySelectorAll('td')[2]!;
}

describe('a failure the platform is done with', () => {
  it('is Error and final: the project is not busy, its newest page is polled at the slow pace, and the watch list and detail page agree', async () => {
    const { project, op } = projectWithFailure(90 * DAY);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    expect(await statusCell()).toHaveTextContent('Error');
    expect(screen.queryByText(/running in this project/)).not.toBeInTheDocument();
    expect(screen.queryByText(/^Live:/)).not.toBeInTheDocument();
    // What actually happens, not the chosen pace: nothing is in progress, so the history checks every 30 s.
    // One statement of it: the chosen interval is named for what it paces, beside what happens now.
    expect(screen.getByText('Nothing in progress: checks for new operations every 30 s.')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Refresh operations in progress every' })).toBeInTheDocument();

    // At the live pace 25 s would be 250 refreshes; at the slow one (30 s) there is none, then one.
    let before = operationRequests(project.id).length;
    await elapse(25_000);
    expect(operationRequests(project.id).length).toBe(before);
    await elapse(10_000);
    expect(operationRequests(project.id).length).toBe(before + 1);

    // It has ended: nothing to watch.
    expect(screen.queryByRole('button', { name: /^Watch Suspend compute/ })).not.toBeInTheDocument();

    // Its page says it has ended and checks no more.
    await user.click(within(screen.getByRole('table', { name: /operations/i })).getByRole('link', { name: 'Suspend compute' }));
    expect(await screen.findByText(/This operation has ended; no more checks/)).toBeInTheDocument();
    expect(screen.getByText(/No retry is ahead/)).toBeInTheDocument();
    // Its retry time is long past: never "Retry at <past time>" beside "No retry is ahead".
    expect(screen.queryByText('Retry at')).not.toBeInTheDocument();
    expect(screen.getByText('Last retry was due')).toBeInTheDocument();
    expect(screen.queryByText(/running in this project/)).not.toBeInTheDocument();
    before = operationRequests(project.id).length;
    await elapse(10 * INTERVAL_MS);
    expect(operationRequests(project.id).length).toBe(before);
    expect(op.id).toBeTruthy();
  });

  it('is still in flight while it changed in the last 15 minutes: the project is busy, and its page keeps checking', async () => {
    const { project, op } = projectWithFailure(5 * MINUTE);
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    expect(await statusCell()).toHaveTextContent('Error');
    expect(screen.getByText(/An operation is running/)).toBeInTheDocument();
    expect(screen.getByText(/^Checking every \d+ s: operations in progress are refreshed\.$/)).toBeInTheDocument();
    expect(op.id).toBeTruthy();
  });
});
