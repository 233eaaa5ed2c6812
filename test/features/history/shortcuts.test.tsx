import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { addHistory, newProject, operationsTable, tableIds } from './history-support';

// The history's keys: / to the text box, j and k between rows, Enter opens, w watches, ? lists them;
// none of them while typing in a field.

const sim = setupSimServer({ start: Date.now(), store: true });
beforeAll(polyfillModalDialogs);
beforeEach(() => localStorage.setItem('ops-console.poll-interval-ms', '100'));

function rowLink(index: number) {
  return within(within(operationsTable()).getAllByRole('row')[index + 1]!).getAllByRole('link')[0]!;
}

describe('keyboard shortcuts of the history', () => {
  it('goes from / to an opened operation: search, leave the box, j and k through the rows, Enter', async () => {
    const project = newProject(sim);
    const ops = addHistory(sim, project.id, 12, (i) => ({ action: i % 3 ? 'check_availability' : 'apply_config' }));
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('table', { name: /operations/i });

    await user.keyboard('/');
    const box = screen.getByRole('searchbox', { name: 'Search' });
    expect(box).toHaveFocus();
    // Typed into the box, j and k are letters, not moves.
    await user.keyboard('apply');
    expect(box).toHaveValue('apply');
    await user.keyboard('{Escape}');
    expect(box).not.toHaveFocus();
    const applies = ops.filter((op) => op.action === 'apply_config');
    await waitFor(() => expect(tableIds()).toHaveLength(applies.length));

    await user.keyboard('j');
    expect(rowLink(0)).toHaveFocus();
    await user.keyboard('jj');
    expect(rowLink(2)).toHaveFocus();
    await user.keyboard('k');
    expect(rowLink(1)).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(window.location.pathname).toBe(`/projects/${project.id}/operations/${applies[1]!.id}`));
    expect(await screen.findByRole('heading', { level: 1, name: 'Apply config' })).toBeInTheDocument();
  });

  it('watches the operation in focus with w, and w again stops watching it', async () => {
    const project = newProject(sim);
    // Operations in flight: an ended one has no Watch.
    for (let i = 0; i < 3; i++) {
      sim.cp.addOperation({
        projectId: project.id,
        action: 'check_availability',
        startAs: 'running',
        durationMs: 60 * 60_000,
        fail: false,
        createdAt: sim.clock.now() - (3 - i) * 60_000,
      });
    }
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('table', { name: /operations/i });
    await user.keyboard('jj');
    const row = within(operationsTable()).getAllByRole('row')[2]!;
    const watch = within(row).getByRole('button', { name: /^Watch/ });
    await user.keyboard('w');
    expect(watch).toHaveAttribute('aria-pressed', 'true');
    expect(await within(screen.getByRole('complementary', { name: 'Watched operations' })).findByText('Check availability')).toBeInTheDocument();
    await user.keyboard('w');
    expect(watch).toHaveAttribute('aria-pressed', 'false');
  });

  it('lists the shortcuts on ?, and does nothing with the keys in a field or with Ctrl held', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 3);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('table', { name: /operations/i });

    await user.keyboard('?');
    const dialog = screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const key of ['/', 'j', 'k', 'Enter', 'w', '?']) expect(within(dialog).getByText(key, { selector: 'kbd' })).toBeInTheDocument();
    // (Escape closes it too: the browser's own, which jsdom does not have.)
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    screen.getByRole('combobox', { name: 'Branch' }).focus();
    await user.keyboard('j');
    expect(screen.getByRole('combobox', { name: 'Branch' })).toHaveFocus();
    await user.click(document.body);
    await user.keyboard('{Control>}j{/Control}');
    expect(document.body).toHaveFocus();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
