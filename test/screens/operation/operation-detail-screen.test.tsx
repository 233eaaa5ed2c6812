import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { elapse, withFakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });
withFakeConsoleClock();
const MINUTE = 60_000;

let detailRequests = 0;
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  detailRequests = 0;
  sim.onPageRequest((request) => {
    if (/\/operations\/[^/]+$/.test(new URL(request.url).pathname)) detailRequests++;
  });
});
afterEach(() => sim.server.events.removeAllListeners());

function projectWithCompute() {
  return sim.cp.addProject({ name: 'Detail test', ownerId: sim.seed.userId, compute: 'idle' });
}

function field(name: string): HTMLElement {
  const term = screen.getByText(name, { selector: 'dt' });
  return term.nextElementSibling as HTMLElement;
}

describe('operation detail', () => {
  it('shows every field humanised, with branch and compute linking back to the project', async () => {
    const project = projectWithCompute();
    const op = sim.cp.addOperation({
      projectId: project.id,
      action: 'start_compute',
      status: 'finished',
      branchId: project.defaultBranchId,
      endpointId: project.endpointId ?? undefined,
      durationMs: 4_200,
      createdAt: Date.parse('2026-11-20T08:30:00Z'),
    });
    renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });

    expect(await screen.findByRole('heading', { level: 1, name: 'Start compute' })).toBeInTheDocument();
    expect(screen.getByTestId('operation-status')).toHaveTextContent('OK');
    expect(field('Operation')).toHaveTextContent('Start compute start_compute');
    // Names come from the branch and compute lists, which load beside the operation.
    expect(await within(field('Branch')).findByRole('link', { name: 'main' })).toHaveAttribute('href', `/projects/${project.id}`);
    expect(within(field('Compute')).getByRole('link')).toHaveAttribute('href', `/projects/${project.id}`);
    expect(field('Duration')).toHaveTextContent('4.2 s');
    expect(field('Created')).toHaveTextContent('2026-11-20 08:30:00 UTC');
    expect(field('Failures')).toHaveTextContent('0');
    expect(field('Operation id')).toHaveTextContent(op.id);
    expect(screen.getByText(/has ended; no more checks/)).toBeInTheDocument();
    expect(document.title).toBe('OK · Start compute · Ops Console');
  });

  it('watches a live operation to OK in place, announces the change, then stops polling', async () => {
    const project = projectWithCompute();
    const op = sim.cp.addOperation({ projectId: project.id, action: 'create_branch', startAs: 'running', durationMs: 3_000, fail: false });
    renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });

    expect(await screen.findByTestId('operation-status')).toHaveTextContent('In progress');
    expect(document.title).toBe('In progress · Create branch · Ops Console');
    expect(screen.getByText(/Last checked \d+ s ago · next check in \d+ s/)).toBeInTheDocument();

    sim.clock.advance(5_000);
    await waitFor(() => expect(screen.getByTestId('operation-status')).toHaveTextContent('OK'));
    // The announcement follows the status in an effect of its own, one render later.
    expect(await screen.findByText('Create branch: status changed to OK.')).toBeInTheDocument();
    expect(document.title).toBe('OK · Create branch · Ops Console');

    // It has ended: no more checks, however long the page stays open.
    const settled = detailRequests;
    await elapse(60_000);
    expect(detailRequests).toBe(settled);
  });

  it('explains a failed operation the platform may retry: error, failures and retry time', async () => {
    const project = projectWithCompute();
    const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'failed', error: 'compute unreachable' });
    renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });

    expect(await screen.findByTestId('operation-status')).toHaveTextContent('Error');
    expect(screen.getByText('This operation failed.')).toBeInTheDocument();
    expect(field('Error')).toHaveTextContent('compute unreachable');
    expect(field('Failures')).toHaveTextContent('1');
    expect(field('Retry at')).toHaveTextContent(/UTC$/);
    expect(screen.getByText(/may retry it/)).toBeInTheDocument();
  });

  it('keeps the last data on screen with a reconnecting note when a poll fails, and recovers', async () => {
    const project = projectWithCompute();
    const op = sim.cp.addOperation({ projectId: project.id, action: 'create_branch', startAs: 'running', durationMs: 60_000, fail: false });
    renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
    expect(await screen.findByTestId('operation-status')).toHaveTextContent('In progress');

    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations/:operationId', () => HttpResponse.json({ code: '', message: 'service unavailable' }, { status: 503 })),
    );
    expect(await screen.findByText(/Reconnecting… the last check failed \(service unavailable\)/)).toBeInTheDocument();
    expect(screen.getByTestId('operation-status')).toHaveTextContent('In progress');
    expect(field('Operation id')).toHaveTextContent(op.id);

    sim.server.resetHandlers();
    sim.clock.advance(2 * MINUTE);
    await waitFor(() => expect(screen.getByTestId('operation-status')).toHaveTextContent('OK'));
    expect(screen.queryByText(/Reconnecting/)).not.toBeInTheDocument();
  });

  it('checks at once on "Check now"', async () => {
    const project = projectWithCompute();
    const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'failed' });
    const { user } = renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
    await screen.findByTestId('operation-status');
    const before = detailRequests;
    await user.click(screen.getByRole('button', { name: 'Check now' }));
    await waitFor(() => expect(detailRequests).toBe(before + 1));
  });

  it('explains an operation that is not there (pruned, or outside the key) with a way back', async () => {
    const project = projectWithCompute();
    renderApp(`/projects/${project.id}/operations/00000000-0000-4000-8000-000000000000`, { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load this operation.');
    expect(within(alert).getByRole('link', { name: /Back to the project/ })).toHaveAttribute('href', `/projects/${project.id}`);
  });
});
