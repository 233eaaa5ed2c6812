import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { addHistory, MINUTE, newProject, operationsTable } from './history-support';

// An operation still in flight well past its action's usual duration here says so, in words, in the
// table's status cell and on its page, with the usual figure beside it; it clears once the operation ends.

const sim = setupSimServer({ start: Date.now() });
beforeEach(() => localStorage.setItem('ops-console.poll-interval-ms', '100'));

/** Ten compute starts that took 2 s each, and one started 5 minutes ago that runs for 10. */
function slowStart() {
  const project = newProject(sim);
  addHistory(sim, project.id, 10, () => ({ action: 'start_compute', durationMs: 2_000 }));
  const slow = sim.cp.addOperation({
    projectId: project.id,
    action: 'start_compute',
    createdAt: sim.clock.now() - 5 * MINUTE,
    startAs: 'running',
    durationMs: 10 * MINUTE,
    fail: false,
  });
  return { project, slow };
}

describe('"Longer than usual"', () => {
  it('marks the slow operation in the table, beside its status, and clears it once it ends', async () => {
    const { project } = slowStart();
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('table', { name: /operations/i });
    const statusCell = () => within(within(operationsTable()).getAllByRole('row')[1]!).getAllByRole('cell')[2]!;
    await waitFor(() => expect(statusCell()).toHaveTextContent(/^In progress.*Longer than usual \(usually 2\.0 s, p95 2\.0 s\)$/));
    // Only the slow one: the ten that ended say nothing more than their status.
    expect(within(operationsTable()).getAllByText('Longer than usual')).toHaveLength(1);
    // The page states the rule.
    expect(screen.getByText(/past 2× the p95 of its action here, and past 30 s, is marked "Longer than usual"/)).toBeInTheDocument();

    sim.clock.advance(6 * MINUTE);
    await waitFor(() => expect(statusCell()).toHaveTextContent(/^OK$/));
    expect(screen.queryByText('Longer than usual')).not.toBeInTheDocument();
  });

  it('marks it on its own page too, and clears it there once it ends', async () => {
    const { project, slow } = slowStart();
    renderApp(`/projects/${project.id}/operations/${slow.id}`, { apiKey: sim.apiKey });
    expect(await screen.findByText('Longer than usual')).toBeInTheDocument();
    expect(screen.getByText('(usually 2.0 s, p95 2.0 s)')).toBeInTheDocument();

    sim.clock.advance(6 * MINUTE);
    await waitFor(() => expect(screen.getByTestId('operation-status')).toHaveTextContent('OK'));
    expect(screen.queryByText('Longer than usual')).not.toBeInTheDocument();
  });

  it('shows the usual p50 and p95 of each action over the history loaded', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 40, (i) => ({ action: i % 2 ? 'apply_config' : 'suspend_compute', durationMs: (i + 1) * 1_000 }));
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await screen.findByText('Usual durations'));
    const table = screen.getByRole('table', { name: 'Usual durations per action' });
    const row = within(table).getByRole('rowheader', { name: 'Apply config' }).closest('tr')!;
    // apply_config took 2, 4, …, 40 s: p50 20 s, p95 38 s, longer than usual after 2 × 38 s.
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['20', '20 s', '38 s', '1 min 16 s']);
  });
});
