import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The timeline on a project's page: a figure captioned "Timeline", one lane per branch and compute,
// each mark a link to its operation, failures marked by shape, work in flight growing, the filters applied.

const sim = setupSimServer({ start: Date.now() });
const MINUTE = 60_000;
beforeEach(() => localStorage.setItem('ops-console.poll-interval-ms', '100'));

function project() {
  const p = sim.cp.addProject({ name: 'Timeline', ownerId: sim.seed.userId, compute: 'idle' });
  const dev = sim.cp.addBranch({ projectId: p.id, name: 'dev', compute: false });
  const now = sim.clock.now();
  const ok = sim.cp.addOperation({
    projectId: p.id,
    action: 'apply_config',
    status: 'finished',
    branchId: p.defaultBranchId,
    endpointId: p.endpointId ?? undefined,
    createdAt: now - 50 * MINUTE,
    durationMs: 3 * MINUTE,
  });
  const failed = sim.cp.addOperation({
    projectId: p.id,
    action: 'create_branch',
    status: 'error',
    branchId: dev.id,
    createdAt: now - 30 * MINUTE,
    durationMs: MINUTE,
  });
  const running = sim.cp.addOperation({
    projectId: p.id,
    action: 'start_compute',
    branchId: p.defaultBranchId,
    createdAt: now - 10 * MINUTE,
    startAs: 'running',
    durationMs: 60 * MINUTE,
    fail: false,
  });
  return { p, ok, failed, running };
}

const figure = () => screen.getByRole('figure', { name: /^Timeline/ });

describe('the timeline', () => {
  it('draws the matching operations as links to their pages, in lanes per branch and compute', async () => {
    const { p, ok, failed, running } = project();
    renderApp(`/projects/${p.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(within(figure()).getAllByRole('link')).toHaveLength(3));
    expect(figure().querySelector('figcaption')).toHaveTextContent(
      /^Timeline of the operations loaded, last day: 3 on 3 lanes, 1 marked Error, 1 in progress\.$/,
    );
    const links = within(figure()).getAllByRole('link');
    expect(links.map((a) => a.getAttribute('href')).sort()).toEqual([ok, failed, running].map((op) => `/projects/${p.id}/operations/${op.id}`).sort());
    expect(within(figure()).getByRole('link', { name: /^Create branch, Error, dev, started .*, took 1 min$/ })).toBeInTheDocument();
    // Failures have a shape of their own (a diamond), not only a colour; work in flight an arrowhead.
    expect(
      within(figure())
        .getByRole('link', { name: /^Create branch/ })
        .querySelector('path'),
    ).not.toBeNull();
    expect(
      within(figure())
        .getByRole('link', { name: /^Apply config/ })
        .querySelector('path'),
    ).toBeNull();
    expect(
      within(figure())
        .getByRole('link', { name: /^Start compute, In progress, main, started .*, running for 10 min/ })
        .querySelector('path'),
    ).not.toBeNull();
  });

  it('grows the marks of work in flight as time passes', async () => {
    const { p } = project();
    renderApp(`/projects/${p.id}?action=start_compute`, { apiKey: sim.apiKey });
    const live = await within(await screen.findByRole('figure', { name: /^Timeline/ })).findByRole('link', { name: /^Start compute/ });
    const width = () => Number(live.querySelector('rect')?.getAttribute('width'));
    const before = width();
    await waitFor(() => expect(width()).toBeGreaterThan(before));
  });

  it('shows only what the filters let through, and follows a mark to its page', async () => {
    const { p, failed } = project();
    const { user } = renderApp(`/projects/${p.id}?status=failed,error`, { apiKey: sim.apiKey });
    await waitFor(() => expect(within(figure()).getAllByRole('link')).toHaveLength(1));
    await user.click(within(figure()).getByRole('link'));
    await waitFor(() => expect(window.location.pathname).toBe(`/projects/${p.id}/operations/${failed.id}`));
    expect(await screen.findByRole('heading', { level: 1, name: 'Create branch' })).toBeInTheDocument();
  });
});
