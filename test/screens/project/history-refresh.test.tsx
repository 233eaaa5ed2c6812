import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CATCH_UP_PACE_MS } from '../../../src/api/operation-history';
import { elapse, fakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The loaded history is the one store: a refresh of the newest page is spliced into it, and one that
// does not reach the loaded pages (more new operations than a page holds) pages on until it does.

const sim = setupSimServer({ start: Date.now() });
const MINUTE = 60_000;
/** The table's row height before one is measured (jsdom has no layout, so it stays). */
const ROW_HEIGHT = 37;

let requests: { url: URL; at: number }[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  requests = [];
  sim.onPageRequest((request) => {
    requests.push({ url: new URL(request.url), at: Date.now() });
  });
  // jsdom has no scrolling; the virtualiser's own scroll writes are no-ops here.
  vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});
afterEach(() => {
  sim.server.events.removeAllListeners();
  vi.restoreAllMocks();
  vi.useRealTimers();
  Object.defineProperty(window, 'scrollY', { configurable: true, value: 0 });
  setHidden(false);
});

/** A project whose newest page stays live (a long operation runs), over `count` finished ones from earlier. */
function busyProject(count: number) {
  const project = sim.cp.addProject({ name: 'Busy project', ownerId: sim.seed.userId, compute: false });
  const start = sim.clock.now() - 60 * MINUTE - count * MINUTE;
  for (let i = 0; i < count; i++) {
    sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: start + i * MINUTE });
  }
  sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 5 * 60 * MINUTE, fail: false, startAs: 'running' });
  return project;
}

/** `count` new operations, all since the last refresh, spread over the `withinMs` up to now. */
function burst(projectId: string, count: number, withinMs: number) {
  const end = sim.clock.now();
  for (let i = 0; i < count; i++) {
    sim.cp.addOperation({ projectId, action: 'create_branch', status: 'finished', createdAt: end - withinMs + Math.floor(((i + 1) * withinMs) / count) });
  }
}

const listRequests = (projectId: string) => requests.filter((r) => r.url.pathname === `/api/v2/projects/${projectId}/operations`);

function setHidden(hidden: boolean) {
  if (hidden) Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  else Reflect.deleteProperty(document, 'visibilityState');
  act(() => {
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  });
}

function table() {
  return screen.getByRole('table', { name: /operations/i });
}

/** The rows the table shows (plain selectors: a `waitFor` runs this on every change, and role queries over rows are slow in jsdom). */
const rowsShown = () => table().querySelectorAll('tbody tr:not([aria-hidden="true"])').length;

function scrollPageTo(y: number) {
  act(() => {
    Object.defineProperty(window, 'scrollY', { configurable: true, value: y });
    window.dispatchEvent(new Event('scroll'));
  });
}

/**
 * Every row of the table, top to bottom, as the operation id it links to: scrolled through, as a
 * person would, reading each rendered row's place among all rows (aria-rowindex) and its link.
 */
function readAllRows(): string[] {
  const count = Number(table().getAttribute('aria-rowcount')) - 1;
  const ids = new Map<number, string>();
  for (let y = 0; y <= count * ROW_HEIGHT; y += 20 * ROW_HEIGHT) {
    scrollPageTo(y);
    // Plain selectors: role queries over a thousand rows take seconds in jsdom.
    for (const row of table().querySelectorAll('tbody tr[aria-rowindex]')) {
      const href = row.querySelector('a[href]')?.getAttribute('href');
      if (href) ids.set(Number(row.getAttribute('aria-rowindex')) - 2, href.split('/').pop() ?? '');
    }
  }
  scrollPageTo(0);
  return Array.from({ length: count }, (_, i) => ids.get(i) ?? `(row ${i} never rendered)`);
}

async function expectLoaded(count: number) {
  await waitFor(() => expect(table()).toHaveAttribute('aria-rowcount', String(count + 1)));
}

async function loadMoreToEnd(user: ReturnType<typeof renderApp>['user']) {
  while (!screen.queryByText(/End of history/)) {
    await user.click(await screen.findByRole('button', { name: /Load more/ }));
    await waitFor(() => expect(screen.queryByText('Loading more operations…')).not.toBeInTheDocument());
  }
}

describe('a history refreshed by its newest page', () => {
  it('takes a burst larger than a page between two refreshes, then loads on to the end: each operation once, in order', async () => {
    const project = busyProject(130);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(rowsShown()).toBe(100));
    expect(screen.getByRole('button', { name: /Load more/ })).toBeInTheDocument();

    // 150 new operations at once, with pages of 100: the next refresh does not reach what is loaded.
    sim.clock.advance(MINUTE);
    burst(project.id, 150, 30_000);
    await expectLoaded(250);
    // The refresh paged on by cursor from its own page (a catch-up page asks for up to 1000).
    expect(listRequests(project.id).some((r) => r.url.searchParams.get('limit') === '1000' && r.url.searchParams.has('cursor'))).toBe(true);
    // Older operations are still to load: the history has not ended.
    expect(screen.queryByText(/End of history/)).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Load more/ })).toBeInTheDocument();

    await loadMoreToEnd(user);
    const expected = sim.cp.operationsOf(project.id).map((op) => op.id);
    expect(expected).toHaveLength(281);
    await expectLoaded(281);
    const shown = readAllRows();
    expect(shown).toEqual(expected);
    expect(new Set(shown).size).toBe(281);
    expect(screen.getByText(/End of history/)).toBeInTheDocument();
  });

  // The heaviest component test (1,300 rows refreshed, paged to their end and read back by scrolling): 9 s in CI, and
  // past 30 s beside two other runs' tests; its limit is its own.
  it('brings a tab hidden for a busy hour up to date when it comes back: paged, paced, each operation once', { timeout: 60_000 }, async () => {
    const project = busyProject(130);
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await waitFor(() => expect(rowsShown()).toBe(100));

    // From here the console runs on a clock the test can move: an hour hidden passes at once.
    fakeConsoleClock();
    setHidden(true);
    // A request already on its way when the tab was hidden may still land.
    await elapse(300);
    const hiddenSince = requests.length;
    sim.clock.advance(60 * MINUTE);
    burst(project.id, 1_200, 60 * MINUTE);
    // A hidden tab sends nothing, for an hour of the console's time too.
    await elapse(60 * MINUTE);
    expect(requests.length).toBe(hiddenSince);

    const back = Date.now();
    setHidden(false);
    await expectLoaded(1_300);
    const sinceBack = listRequests(project.id).filter((r) => r.at >= back);
    // The refresh (the newest 100) at once, then two catch-up pages of up to 1000 from its cursor, paced apart.
    expect(sinceBack[0]?.url.searchParams.get('limit')).toBe('100');
    const catchUp = sinceBack.filter((r) => r.url.searchParams.get('limit') === '1000');
    expect(catchUp).toHaveLength(2);
    expect(catchUp.every((r) => r.url.searchParams.has('cursor'))).toBe(true);
    expect(catchUp[0]!.at - sinceBack[0]!.at).toBeGreaterThanOrEqual(CATCH_UP_PACE_MS - 5);
    expect(catchUp[1]!.at - catchUp[0]!.at).toBeGreaterThanOrEqual(CATCH_UP_PACE_MS - 5);
    expect(screen.getByRole('button', { name: /Load more/ })).toBeInTheDocument();

    await loadMoreToEnd(user);
    const expected = sim.cp.operationsOf(project.id).map((op) => op.id);
    await expectLoaded(expected.length);
    expect(readAllRows()).toEqual(expected);
  });
});
