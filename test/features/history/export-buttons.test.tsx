import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catchDownloads, type Download } from '../../support/downloads';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });
const MINUTE = 60_000;

let downloads: Promise<Download>[] = [];
beforeEach(() => {
  downloads = catchDownloads();
});
afterEach(() => vi.restoreAllMocks());

function addHistory(projectId: string, count: number) {
  const start = sim.clock.now() - 60 * MINUTE - count * MINUTE;
  for (let i = 0; i < count; i++) {
    sim.cp.addOperation({ projectId, action: 'check_availability', status: i % 7 === 0 ? 'error' : 'finished', createdAt: start + i * MINUTE });
  }
}

async function loadedRows(count: number) {
  await waitFor(() =>
    expect(
      within(screen.getByRole('table', { name: /operations/i }))
        .getAllByRole('row')
        .slice(1),
    ).toHaveLength(count),
  );
}

describe('exporting the operation history', () => {
  it('downloads every loaded operation once as CSV and as JSON, "Load more" pages included', async () => {
    const project = sim.cp.addProject({ name: 'Export me', ownerId: sim.seed.userId, compute: false });
    addHistory(project.id, 130);
    const expectedIds = sim.cp.operationsOf(project.id).map((op) => op.id);

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await loadedRows(100);
    await user.click(screen.getByRole('button', { name: /Load more/ }));
    await loadedRows(130);

    const exportGroup = screen.getByRole('group', { name: 'Export loaded operations' });
    await user.click(within(exportGroup).getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    await user.click(within(exportGroup).getByRole('button', { name: 'Export JSON' }));
    await waitFor(() => expect(downloads).toHaveLength(2));
    const [csv, json] = await Promise.all(downloads);

    expect(csv!.name).toMatch(new RegExp(`^operations-${project.id}-\\d{8}T\\d{6}Z\\.csv$`));
    expect(csv!.type).toMatch(/^text\/csv/);
    const lines = csv!.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1 + 130);
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(expectedIds);
    expect(lines[1]).toContain(',check_availability,Check availability,');

    expect(json!.name).toMatch(/\.json$/);
    const document = JSON.parse(json!.text) as { project: { id: string; name: string }; operations: { id: string; status: string; status_label: string }[] };
    expect(document.project).toEqual({ id: project.id, name: 'Export me' });
    expect(document.operations.map((op) => op.id)).toEqual(expectedIds);
    expect(new Set(document.operations.map((op) => `${op.status}→${op.status_label}`))).toEqual(new Set(['finished→OK', 'error→Error']));

    for (const file of [csv!, json!]) expect(file.text).not.toContain(sim.apiKey);
  });

  it('cannot export before any operation is loaded', async () => {
    const project = sim.cp.addProject({ name: 'Quiet', ownerId: sim.seed.userId, compute: false });

    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });

    await screen.findByText(/No operations yet/);
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Export JSON' })).toBeDisabled();
  });
});
