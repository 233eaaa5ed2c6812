import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDLE_FACTOR } from '../../../src/lib/activity-scheduler';
import { elapse, fakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The activity view through the whole console and the simulator: its scheduler paces real requests
// (a fast poll interval and a large budget keep the test short; the same rule as at 5 s and 60 a minute).

// A store, as a deployed server has: Activity asks the archive about its projects (it holds none here).
const sim = setupSimServer({ start: Date.now(), store: true });
const BUDGET_KEY = 'ops-console.activity-budget-per-minute';
/** The demo key's projects: two personal, two of Acme, two of Northwind. */
const PROJECTS = 6;

let requests: { url: URL; at: number }[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  localStorage.setItem(BUDGET_KEY, '3000');
  requests = [];
  // API requests when the page sends them (the step that chose one sends it at once), not when the
  // stand-in API gets to them, which a busy machine delays unevenly.
  const send = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    if (url.pathname.startsWith('/api/v2/')) requests.push({ url, at: Date.now() });
    return send(input, init);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  setHidden(false);
  localStorage.clear();
});

function setHidden(hidden: boolean) {
  if (hidden) Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  else Reflect.deleteProperty(document, 'visibilityState');
  act(() => {
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  });
}

const table = () => screen.findByRole('table', { name: /activity across projects/i });
const operationReads = () => requests.filter((r) => /^\/api\/v2\/projects\/[^/]+\/operations$/.test(r.url.pathname));
const projectOf = (r: { url: URL }) => r.url.pathname.split('/')[4] ?? '';

/** Plain selectors where the table may be long: role queries over it are slow in jsdom. */
const projectLink = (projectId: string) => document.querySelector(`td a[href="/projects/${projectId}"]`);

function rowOf(operationId: string): HTMLElement | null {
  const link = document.querySelector(`a[href$="/operations/${operationId}"]`);
  return link?.closest('tr') ?? null;
}

describe('activity across projects', () => {
  it('lists work in flight in every project the key reaches, linking each operation and its project', async () => {
    const op = sim.cp.addOperation({ projectId: sim.seed.projectIds.personal, action: 'apply_config', durationMs: 60 * 60_000 });
    const { user } = renderApp('/activity', { apiKey: sim.apiKey });
    await table();
    const row = await waitFor(() => {
      const found = rowOf(op.id);
      if (!found) throw new Error('not listed yet');
      return found;
    });
    expect(within(row).getByRole('link', { name: 'Apply config' })).toHaveAttribute('href', `/projects/${sim.seed.projectIds.personal}/operations/${op.id}`);
    expect(within(row).getByRole('link', { name: 'blog-backend' })).toHaveAttribute('href', `/projects/${sim.seed.projectIds.personal}`);
    expect(within(row).getByText('In progress')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Project' })).toBeInTheDocument();
    // Organizations' projects too (Northwind's storefront starts a compute in the seed).
    await waitFor(() => expect(projectLink(sim.seed.projectIds.storefront)).toHaveTextContent('northwind-storefront'));
    // Watch works from here.
    const watch = within(row).getByRole('button', { name: `Watch Apply config ${op.id.slice(0, 8)}…` });
    await user.click(watch);
    expect(watch).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('complementary', { name: 'Watched operations' })).toHaveTextContent('1 running');
  });

  it('names each row’s branch as the project page does (from the project’s branches list), not by its id', async () => {
    const project = sim.cp.addProject({ name: 'Named rows', ownerId: sim.seed.userId, compute: 'active' });
    const op = sim.cp.addOperation({
      projectId: project.id,
      action: 'apply_config',
      durationMs: 60 * 60_000,
      branchId: project.defaultBranchId,
      endpointId: project.endpointId ?? undefined,
    });
    renderApp('/activity', { apiKey: sim.apiKey });
    await table();
    const row = await waitFor(() => {
      const found = rowOf(op.id);
      if (!found) throw new Error('not listed yet');
      return found;
    });
    await waitFor(() => expect(within(row).getByTitle(project.defaultBranchId)).toHaveTextContent('main'));
    expect(within(row).queryByText(project.defaultBranchId)).toBeNull();
  });

  it('finds a new operation in an idle project within one round, and shows it reach its final label in place', async () => {
    renderApp('/activity', { apiKey: sim.apiKey });
    await table();
    // Wait until every project has been read once.
    await waitFor(() => expect(new Set(operationReads().map(projectOf)).size).toBe(PROJECTS));
    const idle = sim.seed.projectIds.empty;
    const op = sim.cp.addOperation({ projectId: idle, action: 'create_branch', durationMs: 2_000, fail: false });
    const readsBefore = operationReads().length;
    await waitFor(() => expect(rowOf(op.id)).not.toBeNull());
    // Found within one round: no other idle project (blog-backend, northwind-etl) read twice before it. A read of it
    // already on its way when the operation began may have found it (a busy machine answers it late): then every
    // read sent since counts.
    const between = operationReads().slice(readsBefore).map(projectOf);
    const beforeFound = between.includes(idle) ? between.slice(0, between.indexOf(idle) + 1) : between;
    for (const other of [sim.seed.projectIds.personal, sim.seed.projectIds.locked]) {
      expect(beforeFound.filter((id) => id === other).length).toBeLessThanOrEqual(1);
    }
    expect(within(rowOf(op.id) ?? document.body).getByText('In progress')).toBeInTheDocument();
    // The project is busy now: read at the poll interval, so the end shows without a reload.
    act(() => sim.clock.advance(3_000));
    await waitFor(() => expect(within(rowOf(op.id) ?? document.body).getByText('OK')).toBeInTheDocument());
  });

  it('never spends more than its budget, counting the project list too', async () => {
    localStorage.setItem(BUDGET_KEY, '600');
    fakeConsoleClock();
    renderApp('/activity', { apiKey: sim.apiKey });
    await table();
    const start = requests[0]?.at ?? Date.now();
    // Two seconds of the console's clock from its first request, however long the machine takes over them.
    await elapse(2_000);
    const sent = requests.filter((r) => r.at >= start && r.at <= start + 2_000);
    // 600 a minute is one every 100 ms after the opening six (src/lib/activity-scheduler.ts): at most 6 + 20 in 2 s, however many are due.
    expect(sent.length).toBeLessThanOrEqual(26);
    expect(sent.length).toBeGreaterThan(5);
    expect(screen.getByText(/costs now: \d+ requests in the last minute/i)).toBeInTheDocument();
  });

  it('slows down after a 429, waits out its Retry-After and says so', async () => {
    renderApp('/activity', { apiKey: sim.apiKey });
    await table();
    let limitedAt = 0;
    sim.server.use(
      http.get(
        '*/api/v2/projects/:projectId/operations',
        () => {
          limitedAt = Date.now();
          return HttpResponse.json({ code: '', message: 'rate limited' }, { status: 429, headers: { 'Retry-After': '1' } });
        },
        { once: true },
      ),
    );
    expect(await screen.findByText(/asked the console to slow down \(429\).*1500 requests a minute/i, {})).toBeInTheDocument();
    // Nothing before its Retry-After (1 s) has passed, then on at half the pace.
    await waitFor(() => expect(requests.filter((r) => r.at >= limitedAt + 1_000).length).toBeGreaterThan(0));
    expect(requests.filter((r) => r.at > limitedAt + 50 && r.at < limitedAt + 1_000)).toHaveLength(0);
  });

  it('sends nothing while the tab is hidden', async () => {
    fakeConsoleClock();
    renderApp('/activity', { apiKey: sim.apiKey });
    await table();
    setHidden(true);
    // A round already under way when the tab hid ends first (its next request follows its previous answer, which a
    // busy machine delays): the count is taken once the page has sent nothing new for a step of its clock.
    let sentWhileShown = -1;
    for (let tries = 0; tries < 20 && requests.length !== sentWhileShown; tries++) {
      sentWhileShown = requests.length;
      await sim.console.idle();
      await elapse(200);
    }
    // Ten rounds of the idle projects on the console's clock: at this budget, hundreds of requests would be due.
    await elapse(10 * IDLE_FACTOR * 100);
    expect(requests).toHaveLength(sentWhileShown);
    setHidden(false);
    await waitFor(() => expect(requests.length).toBeGreaterThan(sentWhileShown));
  });

  it('keeps its filters in the address: one project, by status', async () => {
    const running = sim.cp.addOperation({ projectId: sim.seed.projectIds.personal, action: 'apply_config', durationMs: 60 * 60_000 });
    const { user } = renderApp(`/activity?project=${sim.seed.projectIds.personal}&status=running`, { apiKey: sim.apiKey });
    await waitFor(() => expect(rowOf(running.id)).not.toBeNull());
    const rows = within(await table())
      .getAllByRole('row')
      .slice(1);
    for (const row of rows) expect(within(row).getByRole('link', { name: 'blog-backend' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Project' })).toHaveValue(sim.seed.projectIds.personal);
    // The history's Status and Action popups (test/features/history/filter-popups.test.tsx), the chosen status a chip.
    expect(screen.getByRole('button', { name: /^Action\b/ })).toHaveAttribute('aria-haspopup', 'listbox');
    await user.click(screen.getByRole('button', { name: 'Remove In progress' }));
    expect(new URLSearchParams(window.location.search).get('status')).toBeNull();
    expect(rowOf(running.id)).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(window.location.search).toBe('');
    await waitFor(() => expect(projectLink(sim.seed.projectIds.storefront)).toHaveTextContent('northwind-storefront'));
  });

  it('speaks only for the projects it has read: no "nothing happening" before it has looked', async () => {
    // Nothing matches this filter anywhere, so the empty state is all there is to see.
    const said: string[] = [];
    const claimedWhileUnchecked: string[] = [];
    const observer = new MutationObserver(() => {
      const empty = document.querySelector('.empty')?.textContent;
      if (!empty) return;
      if (said.at(-1) !== empty) said.push(empty);
      // The budget line counts the projects not read yet: no claim may cover them.
      const budget = document.querySelector('.activity-budget')?.textContent ?? '';
      if (/not checked yet/.test(budget) && !/not checked yet/.test(empty)) claimedWhileUnchecked.push(`${empty} | ${budget}`);
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
    try {
      renderApp('/activity?status=skipped', { apiKey: sim.apiKey });
      await waitFor(() => expect(document.querySelector('.empty')).toHaveTextContent(`in the ${PROJECTS} projects checked.`));
    } finally {
      observer.disconnect();
    }
    expect(claimedWhileUnchecked).toEqual([]);
    expect(document.title).toBe('Activity · Ops Console');
    // Every claim before the last one names how many were read, and how many were not.
    for (const text of said.slice(0, -1)) expect(text).toMatch(new RegExp(`in the \\d of ${PROJECTS} projects checked so far \\(\\d not checked yet\\)`));
    expect(said.every((text) => !/in the 0 /.test(text))).toBe(true);
  });

  it('takes ?ended=day as a day, and says so when ?ended= names no choice instead of changing it silently', async () => {
    const first = renderApp('/activity?ended=day', { apiKey: sim.apiKey });
    expect(await screen.findByText(/and those that ended in the last day, newest first/)).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: /ended within/i })).toHaveValue('1d');
    expect(window.location.search).toBe('?ended=day');
    first.unmount();

    renderApp('/activity?ended=fortnight', { apiKey: sim.apiKey });
    expect(
      await screen.findByText(/“ended=fortnight” in the address is not one of the choices \(15m, 1h, 6h, 1d\): showing the last hour/),
    ).toBeInTheDocument();
  });

  it('checks its address as the history does: a status that is none and a project the key does not reach are each said, not shown as Any or offered', async () => {
    const running = sim.cp.addOperation({ projectId: sim.seed.projectIds.personal, action: 'apply_config', durationMs: 60 * 60_000 });
    renderApp('/activity?status=bogus&project=nope', { apiKey: sim.apiKey });
    expect(await screen.findByText('“bogus” in the address’s status is not a status operations have: showing any status.')).toBeInTheDocument();
    expect(await screen.findByText('“project=nope” in the address is not a project this key reaches: showing every project.')).toBeInTheDocument();
    const project = screen.getByRole('combobox', { name: 'Project' });
    expect(within(project).queryByRole('option', { name: 'nope' })).not.toBeInTheDocument();
    expect(project).toHaveValue('');
    // What it shows instead: everything in flight, in every project.
    await waitFor(() => expect(rowOf(running.id)).not.toBeNull());
  });
});
