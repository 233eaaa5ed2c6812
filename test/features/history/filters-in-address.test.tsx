import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { addHistory, newProject, tableIds } from './history-support';

// Every filter lives in the address: a filtered view can be shared, survives reload, and Back undoes a change.

const sim = setupSimServer({ start: Date.now() });
beforeEach(() => localStorage.setItem('ops-console.poll-interval-ms', '100'));
afterEach(() => sim.server.events.removeAllListeners());

const search = () => new URLSearchParams(window.location.search);

function back() {
  act(() => window.history.back());
}

/** The labels a Status or Action popup shows chosen, read by opening it (and closing it again with Escape). */
async function chosenIn(user: UserEvent, name: string): Promise<string[]> {
  await user.click(await screen.findByRole('button', { name: new RegExp(`^${name}\\b`) }));
  const chosen = within(screen.getByRole('listbox', { name }))
    .queryAllByRole('option', { selected: true })
    .map((option) => option.textContent);
  await user.keyboard('{Escape}');
  return chosen;
}

/** A small project: each kind of operation a few times, on two branches. */
function variedProject() {
  const project = sim.cp.addProject({ name: 'Filters', ownerId: sim.seed.userId, compute: 'idle' });
  const dev = sim.cp.addBranch({ projectId: project.id, name: 'dev', compute: 'idle' });
  const shapes = [
    { status: 'finished' as const, action: 'apply_config' },
    { status: 'failed' as const, action: 'apply_config' },
    { status: 'error' as const, action: 'start_compute' },
    { status: 'cancelled' as const, action: 'create_branch' },
  ];
  const start = sim.clock.now() - 60 * 60_000;
  shapes.forEach((shape, i) => {
    sim.cp.addOperation({ projectId: project.id, ...shape, branchId: i % 2 ? dev.id : project.defaultBranchId, createdAt: start + i * 60_000 });
  });
  return { project, dev, ops: sim.cp.operationsOf(project.id) };
}

describe('filters in the address', () => {
  it('reads every filter from a deep link into its control', async () => {
    const { project, dev } = variedProject();
    const from = '2026-11-20T08:30:00.000Z';
    const renderedApp = renderApp(`/projects/${project.id}?status=failed,error&action=apply_config,start_compute&branch=${dev.id}&q=apply&from=${from}`, {
      apiKey: sim.apiKey,
    });
    const { user } = renderedApp;
    expect(await chosenIn(user, 'Status')).toEqual(['Error']);
    expect(await chosenIn(user, 'Action')).toEqual(['Apply config', 'Start compute']);
    expect(screen.getByRole('combobox', { name: 'Branch' })).toHaveValue(dev.id);
    expect(screen.getByRole('combobox', { name: 'Compute' })).toHaveValue('');
    expect(screen.getByRole('searchbox', { name: 'Search' })).toHaveValue('apply');
    // Written as the page writes time (24-hour, in its zone), not in the browser's own date format.
    expect(screen.getByLabelText('From')).toHaveValue('2026-11-20 08:30');
    // failed apply_config on dev matches; nothing else does.
    await waitFor(() => expect(tableIds()).toHaveLength(1));
  });

  it('writes each change into the address as a new entry, which Back undoes', async () => {
    const { project, dev, ops } = variedProject();
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toHaveLength(ops.length));
    const entries = window.history.length;

    await user.click(screen.getByRole('button', { name: /^Status\b/ }));
    await user.click(screen.getByRole('option', { name: 'Error' }));
    await waitFor(() => expect(search().get('status')).toBe('failed,error'));
    await waitFor(() => expect(tableIds()).toEqual(ops.filter((op) => op.status === 'failed' || op.status === 'error').map((op) => op.id)));

    await user.selectOptions(screen.getByRole('combobox', { name: 'Branch' }), 'dev');
    await waitFor(() => expect(search().get('branch')).toBe(dev.id));
    expect(search().get('status')).toBe('failed,error');
    expect(window.history.length).toBe(entries + 2);

    back();
    await waitFor(() => expect(search().get('branch')).toBeNull());
    // The router renders the popped entry after the address changes.
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Branch' })).toHaveValue(''));
    expect(search().get('status')).toBe('failed,error');
    back();
    await waitFor(() => expect(search().get('status')).toBeNull());
    await waitFor(() => expect(tableIds()).toHaveLength(ops.length));
    expect(await chosenIn(user, 'Status')).toEqual([]);
  });

  it('keeps the statuses the address asked for when another filter changes', async () => {
    const { project } = variedProject();
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await user.click(await screen.findByRole('button', { name: /^Status\b/ }));
    await user.click(screen.getByRole('option', { name: 'Cancelled' }));
    await waitFor(() => expect(search().get('status')).toBe('failed,cancelled'));
  });

  it('follows the text box once typing pauses, as one entry however many keys', async () => {
    const { project, ops } = variedProject();
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toHaveLength(ops.length));
    const entries = window.history.length;
    const box = screen.getByRole('searchbox', { name: 'Search' });
    await user.type(box, 'apply co');
    await waitFor(() => expect(search().get('q')).toBe('apply co'));
    await user.type(box, 'nfig');
    await waitFor(() => expect(search().get('q')).toBe('apply config'));
    expect(window.history.length).toBe(entries + 1);
    await waitFor(() => expect(tableIds()).toEqual(ops.filter((op) => op.action === 'apply_config').map((op) => op.id)));

    // An operation id matches too.
    const target = ops[2]!;
    await user.clear(box);
    await user.type(box, target.id.slice(0, 13));
    await waitFor(() => expect(tableIds()).toEqual([target.id]));
  });

  it('survives a reload, and Clear filters shows the whole history again', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 30, (i) => ({ status: i % 10 === 0 ? 'error' : 'finished' }));
    const first = renderApp(`/projects/${project.id}?status=error`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toHaveLength(3));
    first.unmount();

    // Reload: the same address, a fresh console.
    const { user } = renderApp(`${window.location.pathname}${window.location.search}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toHaveLength(3));
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(tableIds()).toHaveLength(30));
    expect(window.location.search).toBe('');
  });

  it('offers the time range as the last hour, day or week, or any from–to', async () => {
    const project = newProject(sim);
    const ops = addHistory(sim, project.id, 200);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toHaveLength(100));
    const before = Date.now();
    await user.click(screen.getByRole('button', { name: 'Last day' }));
    await waitFor(() => expect(search().get('from')).not.toBeNull());
    const from = Date.parse(search().get('from') ?? '');
    expect(from).toBeGreaterThanOrEqual(before - 86_400_000 - 1_000);
    expect(from).toBeLessThanOrEqual(Date.now() - 86_400_000 + 1_000);
    // All 200 are within the day (one a minute, ending an hour ago): the walk loads the rest.
    await waitFor(() => expect(tableIds()).toHaveLength(200));

    // A to of its own, to the minute as the field takes it: only those created at or before it. The minute before
    // ops[50] (times on the wire are whole seconds, the operations a minute apart), so ops[50] is out and ops[51] in,
    // whatever second the clock started on (to ops[50]'s own minute kept it in when that second was :00, 1 run in 60).
    const to = new Date(Math.floor((Date.parse(ops[50]!.created_at) - 1_000) / 60_000) * 60_000).toISOString().slice(0, 16);
    await user.type(screen.getByLabelText('To'), to);
    await waitFor(() => expect(search().get('to')).toBe(new Date(`${to}:00.000Z`).toISOString()));
    await waitFor(() => expect(tableIds()[0]).toBe(ops[51]!.id));
  });

  it('follows a date edited part by part once typing pauses, as one filter and one entry', async () => {
    const { project, ops } = variedProject();
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toHaveLength(ops.length));
    const entries = window.history.length;
    const field = screen.getByLabelText('To');
    // A browser reports each part typed over a complete date: the year digit by digit is four dates.
    act(() => field.focus());
    for (const year of ['0002', '0020', '0202', '2026']) fireEvent.change(field, { target: { value: `${year}-11-20T08:30` } });
    expect(search().get('to')).toBeNull();
    await waitFor(() => expect(search().get('to')).toBe('2026-11-20T08:30:00.000Z'));
    // The router renders the new address in a transition, a moment after the address bar has it (fc32, a loaded machine).
    await waitFor(() => expect(field).toHaveValue('2026-11-20 08:30'));
    expect(window.history.length).toBe(entries + 1);
    // Text that is no time yet changes nothing, and the field says so; the time it then becomes is followed.
    fireEvent.change(field, { target: { value: '2026-11-21 0' } });
    fireEvent.blur(field);
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(search().get('to')).toBe('2026-11-20T08:30:00.000Z');
    act(() => field.focus());
    fireEvent.change(field, { target: { value: '2026-11-21 09:15' } });
    fireEvent.blur(field);
    await waitFor(() => expect(search().get('to')).toBe('2026-11-21T09:15:00.000Z'));
    expect(field).toHaveAttribute('aria-invalid', 'false');
  });
});
