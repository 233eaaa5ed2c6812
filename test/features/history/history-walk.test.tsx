import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WALK_GAP_MS } from '../../../src/api/walk-pace';
import { elapse, fakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';
import { addHistory, MINUTE, mostInAnySecond, newProject, recordListRequests, tableIds, type ListRequest } from './history-support';

// A filter covers the whole history: the console walks older pages (1,000 at a time) into the one
// history store, at its own pace, and the table shows what matches as it arrives.

const sim = setupSimServer({ start: Date.now() });
let requests: ListRequest[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  requests = recordListRequests();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  sim.server.events.removeAllListeners();
});

/** Every 97th operation failed (the oldest first): matches on nearly every page of any size. */
const failedEvery97 = (i: number) => ({ status: i % 97 === 5 ? ('failed' as const) : ('finished' as const) });

const progress = () => screen.getByText(/Searched|Searching/);

describe('searching the whole history for a filter', () => {
  it('finds every match once, newest first, over many pages, and stops at the end of the history', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 3_450, failedEvery97);
    const expected = all.filter((op) => op.status === 'failed').map((op) => op.id);
    expect(expected.length).toBe(36);

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(progress()).toHaveTextContent('Searched the whole history: 3,450 operations back to'));
    expect(progress()).toHaveTextContent('· 36 matches');
    await waitFor(() => expect(tableIds()).toEqual(expected));

    // The first page as ever (100), then pages of 1,000 from each cursor, and nothing after the end.
    // (A slow machine may also refresh the newest page, without a cursor: that is the live refresh, not the walk.)
    const [first, ...older] = requests.filter((r) => r.url.searchParams.has('cursor') || r === requests[0]);
    expect(first?.url.searchParams.get('limit')).toBe('100');
    expect(first?.url.searchParams.has('cursor')).toBe(false);
    expect(older.map((r) => r.url.searchParams.get('limit'))).toEqual(['1000', '1000', '1000', '1000']);
    const cursors = older.map((r) => r.url.searchParams.get('cursor'));
    expect(new Set(cursors).size).toBe(cursors.length);
    // The walk is over: nothing more goes out for it, however long the page stays (a minute of its clock).
    const settled = older.length;
    fakeConsoleClock();
    await elapse(60_000);
    expect(requests.filter((r) => r.url.searchParams.has('cursor'))).toHaveLength(settled);
  });

  it('shows matches as they are found, before the walk is over', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 2_500, failedEvery97);
    const release: { now: () => void } = { now: () => undefined };
    let held = 0;
    // The third page is held back: the matches of the pages before it are already on screen.
    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations', async ({ request }) => {
        const url = new URL(request.url);
        if (url.searchParams.get('limit') !== '1000' || ++held !== 2) return undefined;
        await new Promise<void>((resolve) => (release.now = resolve));
        return undefined;
      }),
    );

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(progress()).toHaveTextContent(/Searching… searched 1,100 of the history back to .* · 11 matches/));
    await waitFor(() => expect(tableIds()).toHaveLength(11));
    expect(screen.getByRole('button', { name: 'Stop' })).toBeEnabled();
    // Released once it is held: its request may reach the API after the screen shows the pages before it.
    await waitFor(() => expect(held).toBe(2));
    release.now();
    await waitFor(() => expect(progress()).toHaveTextContent('Searched the whole history: 2,500 operations'));
    await waitFor(() => expect(tableIds()).toHaveLength(26));
  });

  it('keeps to its pace: one page at a time, at least 100 ms apart, never more than 10 in a second', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 12_050, () => ({}));

    // On a frozen clock the pace is measured as the console keeps it, whatever the machine's load adds
    // between a turn and its request.
    fakeConsoleClock({ frozen: true });
    renderApp(`/projects/${project.id}?status=error`, { apiKey: sim.apiKey });
    const searched = () => screen.queryByText(/Searched the whole history: 12,050 operations/) !== null;
    for (let step = 0; step < 400 && !searched(); step++) await elapse(50);
    expect(searched()).toBe(true);
    const walk = requests.filter((r) => r.url.searchParams.get('limit') === '1000');
    expect(walk).toHaveLength(12);
    const gaps = walk.slice(1).map((r, i) => r.at - (walk[i]?.at ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(WALK_GAP_MS);
    expect(mostInAnySecond(walk.map((r) => r.at))).toBeLessThanOrEqual(10);
    expect(mostInAnySecond(requests.map((r) => r.at))).toBeLessThanOrEqual(20);
    expect(screen.getByText('No operation in the history searched matches these filters.')).toBeInTheDocument();
  });

  it('slows down on a 429: waits out Retry-After, then goes on and still finds every match', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 2_300, failedEvery97);
    let refusedAt = 0;
    // The walk's first page is refused once, as the platform refuses past its limits.
    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations', ({ request }) => {
        if (refusedAt > 0 || new URL(request.url).searchParams.get('limit') !== '1000') return undefined;
        refusedAt = Date.now();
        return HttpResponse.json({ code: '', message: 'rate limit exceeded' }, { status: 429, headers: { 'Retry-After': '1' } });
      }),
    );

    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(progress()).toHaveTextContent(/Rate limited by the API \(429\)\. Slowing down: going on in 1 s/));
    await waitFor(() => expect(progress()).toHaveTextContent('Searched the whole history: 2,300 operations'));
    const walk = requests.filter((r) => r.url.searchParams.get('limit') === '1000');
    // The refused page, again after a second, and the pages after it, further apart than before.
    expect(walk).toHaveLength(4);
    expect((walk[1]?.at ?? 0) - refusedAt).toBeGreaterThanOrEqual(990);
    expect((walk[2]?.at ?? 0) - (walk[1]?.at ?? 0)).toBeGreaterThanOrEqual(2 * WALK_GAP_MS - 2);
    await waitFor(() => expect(tableIds()).toEqual(all.filter((op) => op.status === 'failed').map((op) => op.id)));
  });

  it('stops once it reaches back past the start of the time range', async () => {
    const project = newProject(sim);
    const all = addHistory(sim, project.id, 5_000, failedEvery97);
    // The range starts 1,500 operations (minutes) back from the newest.
    const from = new Date(Date.parse(all[1_499]!.created_at) - 30_000).toISOString();

    renderApp(`/projects/${project.id}?status=failed&from=${encodeURIComponent(from)}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(progress()).toHaveTextContent('Searched back to the start of the time range: 2,100 operations'));
    await waitFor(() =>
      expect(tableIds()).toEqual(
        all
          .slice(0, 1_500)
          .filter((op) => op.status === 'failed')
          .map((op) => op.id),
      ),
    );
    expect(requests.filter((r) => r.url.searchParams.get('limit') === '1000')).toHaveLength(2);
  });

  it('stops when asked, keeps what it found, and goes on to the end', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 6_000, failedEvery97);
    const third: { sent: boolean; answer: () => void } = { sent: false, answer: () => undefined };
    let walkPages = 0;
    // The walk's third page is held until the test answers it: Stop comes while the walk is provably mid-way.
    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations', async ({ request }) => {
        if (new URL(request.url).searchParams.get('limit') !== '1000' || ++walkPages !== 3) return undefined;
        third.sent = true;
        await new Promise<void>((resolve) => (third.answer = resolve));
        return undefined;
      }),
    );
    const { user } = renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    await waitFor(() => expect(progress()).toHaveTextContent(/Searching… searched 2,100 of the history/));
    await waitFor(() => expect(third.sent).toBe(true));
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(progress()).toHaveTextContent(/Searched 2,100 of the history .* so far\. Stopped\.$/));
    const found = tableIds().length;
    // The page on its way when Stop was pressed is answered now, and is not added.
    third.answer();
    // Stopped means stopped: nothing more goes out for the walk, for a minute of the page's clock
    // (the live refresh of the newest page goes on meanwhile: it reads no cursor).
    const walked = () => requests.filter((r) => r.url.searchParams.has('cursor')).length;
    const stoppedAtPage = walked();
    expect(stoppedAtPage).toBe(3);
    fakeConsoleClock();
    await elapse(60_000);
    vi.useRealTimers();
    expect(walked()).toBe(stoppedAtPage);
    expect(progress()).toHaveTextContent(/Searched 2,100 of the history .* so far\. Stopped\.$/);
    expect(tableIds().length).toBeGreaterThanOrEqual(found);

    await user.click(screen.getByRole('button', { name: 'Go on' }));
    await waitFor(() => expect(progress()).toHaveTextContent(/Searched the whole history: 6,000 operations back to .* · 62 matches/));
    await waitFor(() => expect(new Set(tableIds()).size).toBe(62));
  });

  it('adds new matches on top as the live refresh brings them', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 1_200, failedEvery97);
    // Work in flight keeps the newest page refreshed at the chosen interval.
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 60 * MINUTE, fail: false, startAs: 'running' });

    renderApp(`/projects/${project.id}?status=failed,error`, { apiKey: sim.apiKey });
    await waitFor(() => expect(progress()).toHaveTextContent(/Searched the whole history: 1,201 operations back to .* · 13 matches/));
    // The count may be said before the table has drawn every match.
    await waitFor(() => expect(tableIds()).toHaveLength(13));
    const before = tableIds();
    const fresh = sim.cp.addOperation({ projectId: project.id, action: 'create_branch', status: 'error', createdAt: sim.clock.now() });
    await waitFor(() => expect(tableIds()).toEqual([fresh.id, ...before]));
  });
});
