import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ArchivedOperation } from '../../../src/api/archive-schemas';
import { addHistory, MINUTE, newProject, operationsTable, recordListRequests, tableIds, type ListRequest } from '../../features/history/history-support';
import { SESSION_ENDED_CODES, SESSION_ENDED_MESSAGES } from '../../../src/config/session';
import { endSession } from '../../support/console-server';
import { catchDownloads } from '../../support/downloads';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// A filtered history of a project the archive covers is answered by the console's server from its
// store (GET /archive/projects/:id/operations with the filter's parameters): one request a page, no
// walk over the API. A project it does not cover (404 not_archived) is walked over the API as before.

const sim = setupSimServer({ start: Date.now() });
let apiLists: ListRequest[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  apiLists = recordListRequests();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Every 97th operation failed (the oldest first). */
const failedEvery97 = (i: number) => ({ status: i % 97 === 5 ? ('failed' as const) : ('finished' as const) });
const archiveLists = () => sim.archive.requests.filter((url) => url.pathname.endsWith('/operations'));
const walkRequests = () => apiLists.filter((r) => r.url.searchParams.has('cursor'));

/** An operation the API no longer lists (older than its 6 months), kept by the archive. */
function keptOperation(projectId: string, status: string): ArchivedOperation {
  const created = new Date(Date.now() - 200 * 24 * 60 * MINUTE);
  return {
    id: 'op-kept-by-archive-0001',
    project_id: projectId,
    action: 'apply_config',
    status,
    failures_count: 1,
    created_at: created.toISOString(),
    updated_at: new Date(created.getTime() + 5_000).toISOString(),
    total_duration_ms: 5_000,
    keptSince: new Date(Date.now() - 10 * 24 * 60 * MINUTE).toISOString(),
  };
}

describe('history served from the archive', () => {
  it('answers a filter with one archive request carrying its parameters, shows every match and walks nothing', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_500, failedEvery97);
    sim.archive.cover(project.id, { lastReadAt: new Date().toISOString() });
    sim.archive.kept.set(project.id, [keptOperation(project.id, 'failed')]);
    // The kept operation is an apply_config: q=check leaves it out, as it would in any form of the filter.
    const expected = all.filter((op) => op.status === 'failed').map((op) => op.id);

    renderApp(`/projects/${project.id}?status=failed,error&q=check`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/From the history archive, over the whole record of this project: 26 matches\./)).toBeInTheDocument());
    await waitFor(() => expect(tableIds()).toEqual(expected));

    const [asked, ...more] = archiveLists();
    expect(more).toHaveLength(0);
    expect(asked?.pathname).toBe(`/archive/projects/${project.id}/operations`);
    expect(asked?.searchParams.get('status')).toBe('failed,error');
    expect(asked?.searchParams.get('q')).toBe('check');
    expect(asked?.searchParams.get('limit')).toBe('1000');
    // No walk over the API: only the history's first page (and its live refresh) went there.
    expect(walkRequests()).toHaveLength(0);
    expect(screen.queryByRole('progressbar', { name: 'History searched' })).not.toBeInTheDocument();
    expect(screen.getByText(/No API request is spent on this search/)).toBeInTheDocument();
  });

  it('shows an operation the API no longer lists, marked as kept by the archive in words', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 30, failedEvery97);
    sim.archive.cover(project.id);
    sim.archive.kept.set(project.id, [keptOperation(project.id, 'failed')]);

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toContain('op-kept-by-archive-0001'));
    const row = within(operationsTable())
      .getAllByRole('row')
      .find((r) => within(r).queryByRole('link', { name: 'Apply config' }));
    if (!row) throw new Error('the kept operation has no row');
    expect(within(row).getByText('Kept by the archive')).toBeInTheDocument();
    // The API's own operations carry no such mark.
    expect(screen.getAllByText('Kept by the archive')).toHaveLength(1);
  });

  it('says when the archive is still reading the older history', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 30, failedEvery97);
    sim.archive.cover(project.id, { backfilled: false });
    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    expect(await screen.findByText(/still reading this project’s older history: older matches may be missing/)).toBeInTheDocument();
  });

  it('walks the API exactly as before for a project the archive does not cover', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_500, failedEvery97);
    const expected = all.filter((op) => op.status === 'failed').map((op) => op.id);

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/Searched the whole history: 2,500 operations/)).toBeInTheDocument(), { timeout: 10_000 });
    await waitFor(() => expect(tableIds()).toEqual(expected));
    expect(archiveLists()).toHaveLength(1);
    expect(walkRequests().map((r) => r.url.searchParams.get('limit'))).toEqual(['1000', '1000', '1000']);
    expect(screen.queryByText(/From the history archive/)).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('exports the archive’s matches, kept ones included, without walking the API', async () => {
    const downloads = catchDownloads();
    const project = newProject(sim);
    addHistory(sim, project.id, 1_200, failedEvery97);
    sim.archive.cover(project.id);
    sim.archive.kept.set(project.id, [keptOperation(project.id, 'failed')]);
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/From the history archive, over the whole record of this project: 14 matches\./)).toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Export all matches as NDJSON' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    const file = await downloads[0];
    const lines = (file?.text ?? '').trim().split('\n');
    expect(lines).toHaveLength(14);
    expect(lines.at(-1)).toContain('op-kept-by-archive-0001');
    expect(screen.getByText(/Exported 14 matching operations as NDJSON\./)).toBeInTheDocument();
    expect(walkRequests()).toHaveLength(0);
  });

  it('ends the session, as any 401 does, when it has ended by the time the archive is asked for an export', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 1_200, failedEvery97);
    sim.archive.cover(project.id);
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/From the history archive, over the whole record of this project: 13 matches\./)).toBeInTheDocument());
    let refused = 0;
    sim.server.use(
      http.get('*/archive/projects/:projectId/operations', () => {
        refused++;
        endSession();
        return HttpResponse.json({ code: SESSION_ENDED_CODES.expired, message: SESSION_ENDED_MESSAGES.expired }, { status: 401 });
      }),
    );

    await user.click(screen.getByRole('button', { name: 'Export all matches as CSV' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Your session ended: it expired. Sign in again.');
    expect(screen.getByLabelText(/API key/)).toBeInTheDocument();
    // The export's own read got the 401 (the page's list was not asked again), and it was not retried.
    expect(refused).toBe(1);
  });

  it('walks the API when the archive cannot answer, and says so with a way to ask it again', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 1_200, failedEvery97);
    sim.archive.cover(project.id);
    sim.server.use(http.get('*/archive/projects/:projectId/operations', () => HttpResponse.json({ code: '', message: 'The archive store is not reachable.' }, { status: 500 })));
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The history archive could not answer (The archive store is not reachable.): searching through the API instead.');
    await waitFor(() => expect(tableIds()).toEqual(all.filter((op) => op.status === 'failed').map((op) => op.id)));
    expect(walkRequests().length).toBeGreaterThan(0);
    // Once it answers again, the archive's record is shown (the kept operation with it).
    sim.archive.kept.set(project.id, [keptOperation(project.id, 'failed')]);
    sim.server.resetHandlers();
    await user.click(within(alert).getByRole('button', { name: 'Retry the archive' }));
    await waitFor(() => expect(tableIds()).toContain('op-kept-by-archive-0001'));
  });

  it('opens a kept operation’s page from the archive when the API says 404 for it', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 5);
    sim.archive.cover(project.id);
    sim.archive.kept.set(project.id, [keptOperation(project.id, 'failed')]);
    renderApp(`/projects/${project.id}/operations/op-kept-by-archive-0001`, { apiKey: sim.apiKey });
    expect(await screen.findByRole('heading', { level: 1, name: 'Apply config' })).toBeInTheDocument();
    expect(screen.getByText(/The API no longer has this operation/)).toHaveTextContent(/Kept by the archive/);
    expect(screen.getByTestId('operation-status')).toHaveTextContent('Error');
    expect(screen.queryByText('Could not load this operation.')).not.toBeInTheDocument();
  });

  it('keeps the not-found page of an operation neither the API nor the archive has', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 5);
    renderApp(`/projects/${project.id}/operations/op-nowhere`, { apiKey: sim.apiKey });
    expect(await screen.findByText('Could not load this operation.')).toBeInTheDocument();
    expect(screen.getByText(/It may have been pruned/)).toBeInTheDocument();
  });
});

