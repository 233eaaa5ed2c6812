import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldKey } from '../../support/console-server';
import { elapse, withFakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });
withFakeConsoleClock();
const MINUTE = 60_000;
// Live polling every 100 ms keeps these tests quick; the interval is the person's preference.
const FAST_POLL_MS = '100';

let requests: URL[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', FAST_POLL_MS);
  requests = [];
  sim.onPageRequest((request) => {
    requests.push(new URL(request.url));
  });
});
afterEach(() => sim.server.events.removeAllListeners());

// By default without a compute, so the control plane adds no background operations of its own.
function newProject(name = 'Paging test', compute: 'idle' | false = false) {
  return sim.cp.addProject({ name, ownerId: sim.seed.userId, compute });
}

/** `count` finished operations, one a minute, oldest first, ending an hour ago. */
function addHistory(projectId: string, count: number, shape: (i: number) => { createdAt?: number } = () => ({})) {
  const start = sim.clock.now() - 60 * MINUTE - count * MINUTE;
  for (let i = 0; i < count; i++) {
    sim.cp.addOperation({ projectId, action: 'check_availability', status: 'finished', createdAt: start + i * MINUTE, ...shape(i) });
  }
}

function operationRequests(projectId: string) {
  return requests.filter((u) => u.pathname === `/api/v2/projects/${projectId}/operations`);
}

async function table() {
  return screen.findByRole('table', { name: /operations/i });
}

/** The table's rows but the gaps (plain selectors: `waitFor` runs this on every change, and role queries over 200 rows are slow in jsdom). */
function bodyRows(tableEl: HTMLElement) {
  return [...tableEl.querySelectorAll<HTMLElement>('tbody tr:not([aria-hidden="true"])')];
}

describe('operation history', () => {
  it('shows each operation with its action, branch, compute, status, duration and date, linking to its detail', async () => {
    const project = newProject('Columns', 'idle');
    sim.cp.addOperation({ projectId: project.id, action: 'create_branch', status: 'finished', branchId: project.defaultBranchId, durationMs: 1_500 });
    const started = sim.cp.addOperation({
      projectId: project.id,
      action: 'start_compute',
      status: 'finished',
      branchId: project.defaultBranchId,
      endpointId: project.endpointId ?? undefined,
      durationMs: 75_000,
    });

    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const rows = bodyRows(await table());
    expect(
      within(screen.getByRole('table', { name: /operations/i }))
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Operation', 'Branch', 'Compute', 'Status', 'Duration', 'Date']);
    const [newest, oldest] = rows;
    expect(within(newest!).getByRole('link', { name: 'Start compute' })).toHaveAttribute('href', `/projects/${project.id}/operations/${started.id}`);
    const cells = within(newest!).getAllByRole('cell');
    expect(cells.map((c) => c.textContent)).toEqual(['main', project.endpointId, 'OK', '1 min 15 s', expect.stringMatching(/ago|now/)]);
    // An operation without a compute says so instead of leaving a blank.
    expect(within(oldest!).getAllByRole('cell')[1]).toHaveTextContent('—');
    expect(within(oldest!).getByRole('link', { name: 'Create branch' })).toBeInTheDocument();
  });

  it('labels all eight statuses as the platform console does', async () => {
    const project = newProject();
    const statuses = ['scheduling', 'running', 'cancelling', 'finished', 'failed', 'error', 'cancelled', 'skipped'] as const;
    statuses.forEach((status, i) =>
      sim.cp.addOperation({ projectId: project.id, action: `action_${i}`, status, createdAt: sim.clock.now() - (10 - i) * MINUTE }),
    );

    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const rows = bodyRows(await table());
    const labelOf = (action: string) => {
      const row = rows.find((r) => within(r).queryByRole('link', { name: action }));
      return row ? within(row).getAllByRole('cell')[2]?.textContent : undefined;
    };
    expect(labelOf('Action 0')).toBe('Scheduling');
    expect(labelOf('Action 1')).toBe('In progress');
    expect(labelOf('Action 2')).toBe('In progress (cancelling)');
    expect(labelOf('Action 3')).toBe('OK');
    expect(labelOf('Action 4')).toBe('Error');
    expect(labelOf('Action 5')).toBe('Error');
    expect(labelOf('Action 6')).toBe('Cancelled');
    expect(labelOf('Action 7')).toBe('Skipped');
  });

  it('shows a status and an action it does not know as they came, without failing', async () => {
    const project = newProject();
    sim.server.use(
      http.get(
        '*/api/v2/projects/:projectId/operations',
        () =>
          HttpResponse.json({
            operations: [
              {
                id: '5a0b8f0e-0000-4000-8000-000000000001',
                project_id: project.id,
                action: 'Reticulate Splines',
                status: 'paused_by_operator',
                failures_count: 0,
                created_at: '2026-11-22T11:00:00Z',
                updated_at: '2026-11-22T11:00:00Z',
                total_duration_ms: 0,
              },
            ],
            pagination: { cursor: '2026-11-22T11:00:00.000000Z' },
          }),
        { once: true },
      ),
    );
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const [row] = bodyRows(await table());
    expect(within(row!).getByRole('link', { name: 'Reticulate Splines' })).toBeInTheDocument();
    expect(within(row!).getAllByRole('cell')[2]).toHaveTextContent('paused_by_operator');
  });

  it('pages with the server cursor and returns a same-second pair at a page boundary exactly once each', async () => {
    const project = newProject();
    // The two oldest operations share one second; the boundary after 100 newest falls between them.
    addHistory(project.id, 101, (i) => (i === 1 ? { createdAt: sim.clock.now() - 60 * MINUTE - 101 * MINUTE + 300 } : {}));
    const expected = sim.cp.operationsOf(project.id).map((op) => op.id);

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const firstPage = await table();
    // The first screenful paints at once; the rest of the page follows in a deferred render.
    await waitFor(() => expect(bodyRows(firstPage)).toHaveLength(100));
    await user.click(screen.getByRole('button', { name: /Load more/ }));

    await screen.findByText(/End of history/);
    await waitFor(() => expect(bodyRows(screen.getByRole('table', { name: /operations/i }))).toHaveLength(101));
    const ids = bodyRows(screen.getByRole('table', { name: /operations/i })).map((r) =>
      within(r).getAllByRole('link')[0]!.getAttribute('href')!.split('/').pop(),
    );
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(101);
    const cursors = operationRequests(project.id).map((u) => u.searchParams.get('cursor'));
    expect(cursors.filter(Boolean)).toHaveLength(1);
    expect(operationRequests(project.id).every((u) => u.searchParams.get('limit') === '100')).toBe(true);
  });

  it('detects the end when the last page is exactly full: the cursor comes back but the next page is empty', async () => {
    const project = newProject();
    addHistory(project.id, 200);

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await table();
    await user.click(screen.getByRole('button', { name: /Load more/ }));
    await waitFor(() => expect(bodyRows(screen.getByRole('table', { name: /operations/i }))).toHaveLength(200));
    // Page two was full, so only an empty third page can prove the end.
    await user.click(await screen.findByRole('button', { name: /Load more/ }));
    await screen.findByText(/End of history/);
    expect(screen.queryByRole('button', { name: /Load more/ })).not.toBeInTheDocument();
    expect(bodyRows(screen.getByRole('table', { name: /operations/i }))).toHaveLength(200);
  });

  it('says inline, by "Load more", that its page keeps failing and when it tries again; Retry sends it now', async () => {
    const project = newProject();
    addHistory(project.id, 101);
    let failing = true;
    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations', ({ request }) =>
        failing && new URL(request.url).searchParams.has('cursor')
          ? HttpResponse.json(
              { code: '', message: 'internal server error', request_id: 'req-more' },
              { status: 500, headers: { 'x-neon-ret-request-id': 'req-more' } },
            )
          : undefined,
      ),
    );
    const pageTwoRequests = () => operationRequests(project.id).filter((u) => u.searchParams.has('cursor')).length;

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const firstPage = await table();
    await waitFor(() => expect(bodyRows(firstPage)).toHaveLength(100));
    await user.click(screen.getByRole('button', { name: /Load more/ }));
    await waitFor(() => expect(pageTwoRequests()).toBe(1));
    // The console tries again by itself, waiting twice as long each time: 1, 2, 4 and 8 s.
    for (const [wait, tries] of [
      [1_000, 2],
      [2_000, 3],
      [4_000, 4],
      [8_000, 5],
    ] as const) {
      await elapse(wait);
      await waitFor(() => expect(pageTwoRequests()).toBe(tries));
    }
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load more operations.');
    expect(alert).toHaveTextContent('internal server error');
    expect(alert).toHaveTextContent('req-more');
    expect(alert).toHaveTextContent(/Retrying in 1[56] s\./);
    // Said once, by the button, not again in the page-wide notices.
    expect(screen.queryByText(/Could not load more:/)).not.toBeInTheDocument();
    expect(bodyRows(screen.getByRole('table', { name: /operations/i }))).toHaveLength(100);
    // The footer says what is loaded, not "Loading…" beside a callout that says it is waiting to try again.
    expect(screen.getByRole('button', { name: /Load more/ })).toHaveAccessibleDescription('100 operations loaded');

    failing = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByText(/End of history/);
    expect(pageTwoRequests()).toBe(6);
    await waitFor(() => expect(bodyRows(screen.getByRole('table', { name: /operations/i }))).toHaveLength(101));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('refreshes in-flight rows in place with one request per interval, however many pages are loaded', async () => {
    const project = newProject();
    addHistory(project.id, 150);
    const live = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 10 * MINUTE, fail: false, startAs: 'running' });

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await table();
    await user.click(screen.getByRole('button', { name: /Load more/ }));
    await screen.findByText(/End of history/);
    const liveRow = () => screen.getByRole('link', { name: 'Apply config' }).closest('tr')!;
    expect(within(liveRow()).getAllByRole('cell')[2]).toHaveTextContent('In progress');

    const before = operationRequests(project.id).length;
    const from = Date.now();
    await elapse(10 * Number(FAST_POLL_MS));
    const polls = operationRequests(project.id).slice(before);
    // One an interval (a poll may come a little late while its answer is on the way, never early).
    const intervals = (Date.now() - from) / Number(FAST_POLL_MS);
    expect(polls.length).toBeGreaterThanOrEqual(Math.floor(intervals / 1.5));
    expect(polls.length).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
    // Only the newest page is polled: no cursor, so older pages are never refetched.
    expect(polls.every((u) => u.searchParams.get('cursor') === null)).toBe(true);

    sim.clock.advance(11 * MINUTE);
    await waitFor(() => expect(within(liveRow()).getAllByRole('cell')[2]).toHaveTextContent('OK'));
    expect(bodyRows(screen.getByRole('table', { name: /operations/i }))).toHaveLength(151);
    expect(bodyRows(screen.getByRole('table', { name: /operations/i }))[0]).toBe(liveRow());
    expect(live.id).toBeTruthy();
  });

  it('puts operations started after the page loaded on top while it is live, then stops polling once all are final', async () => {
    const project = newProject();
    addHistory(project.id, 3);
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 2 * MINUTE, fail: false, startAs: 'running' });

    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await table();
    sim.clock.advance(1_000);
    sim.cp.addOperation({ projectId: project.id, action: 'create_branch', durationMs: MINUTE, fail: false, startAs: 'running' });
    await waitFor(() => expect(bodyRows(screen.getByRole('table', { name: /operations/i }))[0]).toHaveTextContent('Create branch'));

    sim.clock.advance(3 * MINUTE);
    // In the table: the Status filter above it offers "In progress" too.
    await waitFor(() => expect(within(screen.getByRole('table', { name: /operations/i })).queryAllByText('In progress')).toHaveLength(0));
    // Then nothing but the slow pace: no request for the next 25 s.
    const settled = operationRequests(project.id).length;
    await elapse(25_000);
    expect(operationRequests(project.id).length).toBe(settled);
  });

  it('says so when a project has no operations yet', async () => {
    const project = sim.cp.addProject({ name: 'Quiet', ownerId: sim.seed.userId, compute: false });
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    expect(await screen.findByText(/No operations yet/)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: /operations/i })).not.toBeInTheDocument();
  });

  it('shows a failed first load with the API message and request id, and recovers on Retry', async () => {
    const project = newProject();
    addHistory(project.id, 5);
    sim.server.use(
      http.get(
        '*/api/v2/projects/:projectId/operations',
        () =>
          HttpResponse.json(
            { code: '', message: 'internal server error', request_id: 'req-500' },
            { status: 500, headers: { 'x-neon-ret-request-id': 'req-500' } },
          ),
        { once: true },
      ),
    );
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the operations.');
    expect(alert).toHaveTextContent('internal server error');
    expect(alert).toHaveTextContent('req-500');

    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(bodyRows(await table())).toHaveLength(5);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows a malformed body as an error with its request id instead of a blank screen', async () => {
    const project = newProject();
    sim.server.use(
      http.get(
        '*/api/v2/projects/:projectId/operations',
        () => HttpResponse.json({ operations: [{ id: 7, status: null }] }, { headers: { 'x-neon-ret-request-id': 'req-bad' } }),
        { once: true },
      ),
    );
    renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/could not read/);
    expect(alert).toHaveTextContent('req-bad');
    expect(screen.getByRole('heading', { level: 1 })).toBeInTheDocument();
  });

  it('returns to the key screen on a 401 mid-session, then back to the same page with a new key', async () => {
    const project = newProject();
    addHistory(project.id, 2);
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 10 * MINUTE, fail: false, startAs: 'running' });
    const temporary = sim.cp.issueApiKey({ kind: 'personal', userId: sim.seed.userId }, 'soon revoked');

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: temporary.secret });
    await table();
    sim.cp.revokeApiKey(temporary.id);

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/rejected \(invalid or revoked\)/);
    expect(window.location.pathname).toBe(`/projects/${project.id}`);
    // The server ended the session on the API's 401.
    expect(heldKey()).toBeNull();

    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    expect(bodyRows(await table())).toHaveLength(3);
    expect(window.location.pathname).toBe(`/projects/${project.id}`);
  });
});
