import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatCount } from '../../../src/lib/format';
import { addHistory, MINUTE, newProject, operationsTable, recordListRequests, tableIds, type ListRequest } from '../../features/history/history-support';
import { keepHistory, waitUntilKept } from '../../support/archive';
import { expireSession, holdSession } from '../../support/console-server';
import { catchDownloads } from '../../support/downloads';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// A filtered history of a project the archive covers is answered by the console's server from its
// store (GET /archive/projects/:id/operations with the filter's parameters): one request a page, no
// walk over the API. A project it does not cover (it answers `archived: false`) is walked over the API as before.
// The archive is the real one: the session's key kept, the server's collector reading the simulator (a user
// with only the test's project, so it reads little), an idle project read again every 600 ms and whole again
// when a second has passed, so an operation the simulator prunes is soon kept as one the API no longer lists.

const sim = setupSimServer({ start: Date.now(), seed: 'empty', store: true, env: { ARCHIVE_INTERVAL_MS: '100', ARCHIVE_FULL_READ_MS: '1000' } });
let apiLists: ListRequest[] = [];
let archiveRequests: URL[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  apiLists = recordListRequests();
  archiveRequests = [];
  sim.onPageRequest((request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/archive/')) archiveRequests.push(url);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  sim.server.events.removeAllListeners();
});

/** Every 97th operation failed (the oldest first). */
const failedEvery97 = (i: number) => ({ status: i % 97 === 5 ? ('failed' as const) : ('finished' as const) });
const archiveLists = () => archiveRequests.filter((url) => url.pathname.endsWith('/operations'));
const walkRequests = () => apiLists.filter((r) => r.url.searchParams.has('cursor'));

/** A failed operation older than the platform keeps (200 days), which the platform prunes once the archive has read it. */
function oldFailure(projectId: string) {
  return sim.cp.addOperation({ projectId, action: 'apply_config', status: 'failed', durationMs: 5_000, createdAt: Date.now() - 200 * 24 * 60 * MINUTE });
}

/** Keeps the session's key, lets the archive read everything, then the platform prunes `pruned` (the archive keeps it). */
async function archiveThenPrune(...pruned: { id: string }[]) {
  holdSession(sim.apiKey);
  await keepHistory(sim.console);
  for (const op of pruned) sim.cp.pruneOperation(op.id);
}

/**
 * Twelve branches made with a compute, 200 days ago (each a create_branch and a start_compute in one second, as the
 * platform makes them), under `newer` checks since: the platform's whole list, newest first, as its API gives it.
 */
function branchesThenChecks(projectId: string, newer: number) {
  const start = Math.floor((Date.now() - 200 * 24 * 60 * MINUTE) / 1_000) * 1_000;
  for (let i = 0; i < 12; i++) {
    const second = start + i * MINUTE;
    sim.cp.addOperation({ projectId, action: 'create_branch', status: 'finished', durationMs: 3_000, createdAt: second + 100 });
    sim.cp.addOperation({ projectId, action: 'start_compute', status: 'finished', durationMs: 6_000, createdAt: second + 600 });
  }
  return addHistory(sim, projectId, newer);
}

describe('the unfiltered history past the API’s end', () => {
  it('goes on with what the archive kept: one list in the platform’s order, each operation once, the kept ones marked', async () => {
    const project = newProject(sim);
    const platform = branchesThenChecks(project.id, 30);
    const dropped = platform.slice(-24);
    await archiveThenPrune(...dropped);

    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    // The API's list ends on its first page: the archive's record goes on from there in the same list.
    await screen.findByText('54 operations loaded');
    // Read by selector: the accessible-role queries over 54 rows are slow in jsdom.
    const rows = () => [...operationsTable().querySelectorAll('tbody tr[data-index]')];
    await waitFor(() => expect(rows()).toHaveLength(54));
    expect(rows().map((row) => decodeURIComponent(row.querySelector('a')?.getAttribute('href')?.split('/operations/')[1] ?? ''))).toEqual(
      platform.map((op) => op.id),
    );
    expect(rows().map((row) => row.textContent.includes('Kept by the archive'))).toEqual(platform.map((op) => dropped.includes(op)));
    expect(screen.getByText(/End of history/)).toBeInTheDocument();
  });
});

describe('a project whose kept key the API refused', () => {
  it('walks the API for a filter and says since when the archive stopped following the project', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 30, failedEvery97);
    holdSession(sim.apiKey);
    await keepHistory(sim.console);
    // The source is refused (as after a 401 from the API): it no longer covers the project.
    const db = await sim.console.running.store.db();
    await db.query('UPDATE archive_sources SET disabled_at = now()');
    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    expect(await screen.findByText(/The history archive stopped following this project after its last read/)).toBeInTheDocument();
    await waitFor(() => expect(tableIds()).toEqual(all.filter((op) => op.status === 'failed').map((op) => op.id)));
    expect(screen.queryByText(/over the whole record of this project/)).not.toBeInTheDocument();
  });
});

describe('history served from the archive', () => {
  it('answers a filter with one archive request carrying its parameters, shows every match and walks nothing', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_500, failedEvery97);
    const kept = oldFailure(project.id);
    await archiveThenPrune(kept);
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

  it('says how many match in all at once when the matches run past one page, as the Insights figure linking here does', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_500, failedEvery97);
    holdSession(sim.apiKey);
    await keepHistory(sim.console);
    const finished = all.filter((op) => op.status === 'finished').length;
    expect(finished).toBeGreaterThan(1_000);

    renderApp(`/projects/${project.id}?status=finished`, { apiKey: sim.apiKey });
    await waitFor(() =>
      expect(
        screen.getByText(
          `From the history archive, over the whole record of this project: ${formatCount(finished)} matches (the newest 1,000 loaded; Load more for the rest).`,
        ),
      ).toBeInTheDocument(),
    );
    expect(screen.queryByText(/1,000\+ matches/)).not.toBeInTheDocument();
  });

  it('shows an operation the API no longer lists, marked as kept by the archive in words', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 30, failedEvery97);
    const kept = oldFailure(project.id);
    await archiveThenPrune(kept);
    await waitUntilKept(sim.console, project.id, kept.id);

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(tableIds()).toContain(kept.id));
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
    // The archive's first whole read of the project (pages of 1,000) is held: it has listed the project, not read it.
    sim.server.use(
      http.get(`*/api/v2/projects/${project.id}/operations`, ({ request }) =>
        new URL(request.url).searchParams.get('limit') === '1000' ? delay('infinite') : undefined,
      ),
    );
    holdSession(sim.apiKey);
    await keepHistory(sim.console, { until: 'listed', projects: 1 });

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    expect(await screen.findByText(/still reading this project’s older history: older matches may be missing/)).toBeInTheDocument();
  });

  it('shows the matches as on their way while the archive is asked, never "no matches" before its answer', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 5);
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    sim.server.use(
      http.get('*/archive/projects/:projectId/operations', async ({ request }) => {
        const url = new URL(request.url);
        // The filter's question is held; the history's own ask past the API's end (`after`) is answered.
        if (!url.searchParams.has('after')) await held;
        return sim.console.request(`${url.pathname}${url.search}`);
      }),
    );
    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    // The history's first page is in (the timeline is drawn with it), and none of it matches: still no verdict.
    const timeline = await screen.findByRole('figure', { name: /^Timeline/ });
    expect(within(timeline).getByText('Finding the matches…')).toBeInTheDocument();
    expect(screen.getAllByText('Finding the matches…')).toHaveLength(2);
    expect(screen.queryByText(/No matching operations|No loaded operation matches|No operation in/)).not.toBeInTheDocument();
    answer();
    expect(await screen.findByText('No operation in the history searched matches these filters.')).toBeInTheDocument();
    expect(within(timeline).getByText('No matching operations in this window.')).toBeInTheDocument();
  });

  it('walks the API exactly as before for a project the archive does not cover', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_500, failedEvery97);
    const expected = all.filter((op) => op.status === 'failed').map((op) => op.id);

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/Searched the whole history: 2,500 operations/)).toBeInTheDocument());
    await waitFor(() => expect(tableIds()).toEqual(expected));
    // The filter's question, and at the API's end whether the archive kept anything past it (it has nothing).
    expect(archiveLists().map((url) => url.searchParams.has('after'))).toEqual([false, true]);
    expect(walkRequests().map((r) => r.url.searchParams.get('limit'))).toEqual(['1000', '1000', '1000']);
    expect(screen.queryByText(/From the history archive/)).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('exports the archive’s matches, kept ones included, without walking the API', async () => {
    const downloads = catchDownloads();
    const project = newProject(sim);
    addHistory(sim, project.id, 1_200, failedEvery97);
    const kept = oldFailure(project.id);
    await archiveThenPrune(kept);
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/From the history archive, over the whole record of this project: 14 matches\./)).toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Export all matches as NDJSON' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    const file = await downloads[0];
    const lines = (file?.text ?? '').trim().split('\n');
    expect(lines).toHaveLength(14);
    expect(lines.at(-1)).toContain(kept.id);
    expect(screen.getByText(/Exported 14 matching operations as NDJSON\./)).toBeInTheDocument();
    expect(walkRequests()).toHaveLength(0);
  });

  it('ends the session, as any 401 does, when it has ended by the time the archive is asked for an export', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 1_200, failedEvery97);
    await archiveThenPrune();
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(screen.getByText(/From the history archive, over the whole record of this project: 13 matches\./)).toBeInTheDocument());
    let refused = 0;
    sim.server.use(
      http.get('*/archive/projects/:projectId/operations', ({ request }) => {
        // The session's 12 hours are over just as the export asks: the server answers it with the cookie it has.
        refused++;
        expireSession();
        const url = new URL(request.url);
        return sim.console.request(`${url.pathname}${url.search}`);
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
    const kept = oldFailure(project.id);
    await archiveThenPrune(kept);
    sim.server.use(
      http.get('*/archive/projects/:projectId/operations', () =>
        HttpResponse.json({ code: '', message: 'The archive store is not reachable.' }, { status: 500 }),
      ),
    );
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The history archive could not answer (The archive store is not reachable.): searching through the API instead.');
    await waitFor(() => expect(tableIds()).toEqual(all.filter((op) => op.status === 'failed').map((op) => op.id)));
    expect(walkRequests().length).toBeGreaterThan(0);
    // Once it answers again, the archive's record is shown (the kept operation with it).
    sim.server.resetHandlers();
    await user.click(within(alert).getByRole('button', { name: 'Retry the archive' }));
    await waitFor(() => expect(tableIds()).toContain(kept.id));
  });

  it('opens a kept operation’s page from the archive first, never asking the API for it (which would answer 404)', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 5);
    const kept = oldFailure(project.id);
    await archiveThenPrune(kept);
    await waitUntilKept(sim.console, project.id, kept.id);
    const answers: number[] = [];
    sim.onPageResponse((request, response) => {
      if (new URL(request.url).pathname === `/api/v2/projects/${project.id}/operations/${kept.id}`) answers.push(response.status);
    });
    renderApp(`/projects/${project.id}/operations/${kept.id}`, { apiKey: sim.apiKey });
    expect(await screen.findByRole('heading', { level: 1, name: 'Apply config' })).toBeInTheDocument();
    expect(screen.getByText(/The API no longer has this operation/)).toHaveTextContent(/Kept by the archive/);
    expect(screen.getByTestId('operation-status')).toHaveTextContent('Error');
    expect(screen.queryByText('Could not load this operation.')).not.toBeInTheDocument();
    expect(answers).toEqual([]);
    expect(archiveRequests.map((url) => url.pathname)).toEqual(['/archive/projects', `/archive/projects/${project.id}/operations`]);
  });

  it('asks the API, not the archive, for an operation of a project the archive does not cover', async () => {
    const project = newProject(sim);
    const [newest] = addHistory(sim, project.id, 5);
    if (!newest) throw new Error('no operation');
    renderApp(`/projects/${project.id}/operations/${newest.id}`, { apiKey: sim.apiKey });
    expect(await screen.findByTestId('operation-status')).toHaveTextContent('OK');
    expect(archiveRequests.map((url) => url.pathname)).toEqual(['/archive/projects']);
  });

  it('keeps the not-found page of an operation neither the API nor the archive has', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 5);
    renderApp(`/projects/${project.id}/operations/op-nowhere`, { apiKey: sim.apiKey });
    expect(await screen.findByText('Could not load this operation.')).toBeInTheDocument();
    expect(screen.getByText(/It may have been pruned/)).toBeInTheDocument();
  });
});

describe('the projects list with a kept key', () => {
  it('says which project has work in progress, when its last operation was and how long its history is, from one archive request and no API read per project', async () => {
    const busy = newProject(sim, 'Busy with history');
    addHistory(sim, busy.id, 40);
    sim.cp.addOperation({ projectId: busy.id, action: 'apply_config', durationMs: 60 * MINUTE, fail: false, startAs: 'running' });
    holdSession(sim.apiKey);
    await keepHistory(sim.console);
    const apiReads: string[] = [];
    sim.onPageRequest((request) => {
      const path = new URL(request.url).pathname;
      if (path.startsWith('/api/v2/projects/')) apiReads.push(path);
    });

    renderApp('/', { apiKey: sim.apiKey });
    const table = await screen.findByRole('table', { name: /^Projects/ });
    const row = await within(table).findByRole('row', { name: /^Busy with history/ });
    await waitFor(() => expect(within(row).getByText('1 in progress')).toBeInTheDocument());
    expect(row).toHaveTextContent(/Last (just now|\d+ (seconds?|minutes?) ago)/);
    expect(row).toHaveTextContent('41 operations');
    expect(within(table).getByRole('columnheader', { name: 'Operations' })).toBeInTheDocument();
    expect(archiveRequests.map((url) => url.pathname)).toEqual(['/archive/projects']);
    expect(apiReads).toEqual([]);
  });
});
