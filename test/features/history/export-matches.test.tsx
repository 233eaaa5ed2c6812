import { screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CSV_COLUMNS } from '../../../src/features/history/export/export-format';
import { catchDownloads, type Download } from '../../support/downloads';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { addHistory, newProject, recordListRequests } from './history-support';

// "Export everything that matches": the whole history (or back to the time range's start) is walked
// the same way the filters walk it, and the matches are written as CSV or NDJSON, page by page.

const sim = setupSimServer({ start: Date.now() });

let downloads: Promise<Download>[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  downloads = catchDownloads();
});
afterEach(() => {
  vi.restoreAllMocks();
  sim.server.events.removeAllListeners();
});

describe('exporting everything that matches', () => {
  it('walks the whole history and writes every match once, newest first, as CSV', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_600, (i) => ({ status: i % 50 === 7 ? 'error' : 'finished' }));
    const expected = all.filter((op) => op.status === 'error').map((op) => op.id);
    const requests = recordListRequests();
    const { user } = renderApp(`/projects/${project.id}?status=error`, { apiKey: sim.apiKey });
    await screen.findByRole('button', { name: /^Status\b/ });
    const exportAll = screen.getByRole('button', { name: 'Export all matches as CSV' });
    // Pressed once it can be: once the history's first page is in.
    await waitFor(() => expect(exportAll).toBeEnabled());
    await user.click(exportAll);

    await waitFor(() => expect(downloads).toHaveLength(1));
    const file = await downloads[0]!;
    expect(file.name).toMatch(new RegExp(`^operations-${project.id}-matches-\\d{8}T\\d{6}Z\\.csv$`));
    expect(file.type).toBe('text/csv;charset=utf-8');
    const lines = file.text.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(expected);
    expect(file.text).not.toContain(sim.apiKey);
    expect(screen.getByText(`Exported ${expected.length} matching operations as CSV.`)).toBeInTheDocument();
    // The walk that found them is the export's: pages of 1,000, each once.
    expect(requests.filter((r) => r.url.searchParams.get('limit') === '1000')).toHaveLength(3);
  });

  it('writes NDJSON, one operation a line, and without filters exports the whole history', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 1_150);
    // The walk's first page is held back, so the export is seen under way before it writes.
    const release: { now: () => void } = { now: () => undefined };
    const held = new Promise<void>((resolve) => (release.now = resolve));
    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations', async ({ request }) => {
        if (new URL(request.url).searchParams.get('limit') === '1000') await held;
        return undefined;
      }),
    );
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await screen.findByRole('table', { name: /operations/i });
    await user.click(screen.getByRole('button', { name: 'Export all matches as NDJSON' }));
    expect(await screen.findByRole('button', { name: 'Cancel export' })).toBeInTheDocument();
    expect(screen.getByText('Searching the whole history for the export…')).toBeInTheDocument();
    expect(downloads).toHaveLength(0);
    release.now();

    await waitFor(() => expect(downloads).toHaveLength(1));
    const file = await downloads[0]!;
    expect(file.name).toMatch(/\.ndjson$/);
    const rows = file.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; status_label: string });
    expect(rows.map((row) => row.id)).toEqual(all.map((op) => op.id));
    expect(rows[0]!.status_label).toBe('OK');
    // What the export walked stays loaded: the table now holds the whole history.
    await waitFor(() => expect(screen.getByText('1150 operations loaded')).toBeInTheDocument());
    expect(screen.getByText(/^End of history/)).toBeInTheDocument();
  });
});
