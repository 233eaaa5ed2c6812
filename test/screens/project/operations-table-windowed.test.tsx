import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });
const MINUTE = 60_000;
// Past the 200 rows where the table starts windowing, twice over.
const ROWS = 400;
const MIDDLE = 250;
/** The table's row height before one is measured (jsdom has no layout, so it stays). */
const ROW_HEIGHT = 37;

beforeEach(() => {
  // jsdom has no scrolling; the virtualiser's own scroll writes are no-ops here.
  vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.restoreAllMocks();
  Object.defineProperty(window, 'scrollY', { configurable: true, value: 0 });
});

/** `count` finished operations, one a minute, oldest first; returns their ids newest first, as the table lists them. */
function projectWithHistory(count: number): { projectId: string; newestFirst: string[] } {
  const project = sim.cp.addProject({ name: 'Long history', ownerId: sim.seed.userId, compute: false });
  const start = sim.clock.now() - 60 * MINUTE - count * MINUTE;
  for (let i = 0; i < count; i++) {
    sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: start + i * MINUTE });
  }
  return { projectId: project.id, newestFirst: sim.cp.operationsOf(project.id).map((op) => op.id) };
}

async function operationsTable() {
  return screen.findByRole('table', { name: /operations/i });
}

/** The rows a screen reader is given: every rendered row but the hidden gap rows, header first. */
function readableRows(table: HTMLElement) {
  return within(table).getAllByRole('row');
}

function linkedId(row: HTMLElement): string | undefined {
  return within(row).queryAllByRole('link')[0]?.getAttribute('href')?.split('/').pop();
}

function scrollPageTo(y: number) {
  act(() => {
    Object.defineProperty(window, 'scrollY', { configurable: true, value: y });
    window.dispatchEvent(new Event('scroll'));
  });
}

async function loadAll(user: ReturnType<typeof renderApp>['user']) {
  for (let page = 1; page < ROWS / 100; page++) {
    await user.click(await screen.findByRole('button', { name: /Load more/ }));
    await waitFor(() => expect(screen.getByText(`${(page + 1) * 100} operations loaded`)).toBeInTheDocument());
  }
  await user.click(await screen.findByRole('button', { name: /Load more/ }));
  await screen.findByText(/End of history/);
}

/** A project of ROWS operations, opened and loaded to its end. */
async function openWholeHistory() {
  const { projectId, newestFirst } = projectWithHistory(ROWS);
  const { user } = renderApp(`/projects/${projectId}`, { apiKey: sim.apiKey });
  await operationsTable();
  await loadAll(user);
  const table = await operationsTable();
  await waitFor(() => expect(table).toHaveAttribute('aria-rowcount', String(ROWS + 1)));
  return { newestFirst, table, user };
}

describe('a long operation history', () => {
  it('counts every loaded row for assistive technology but renders only the rows around the viewport', async () => {
    const { newestFirst, table } = await openWholeHistory();
    const rows = readableRows(table);
    // The header, then the newest operations from the top, each at its place among all rows.
    expect(rows[0]).toHaveAttribute('aria-rowindex', '1');
    expect(rows.length - 1).toBeGreaterThan(10);
    expect(rows.length - 1).toBeLessThan(100);
    expect(rows.slice(1).map(linkedId)).toEqual(newestFirst.slice(0, rows.length - 1));
    expect(rows.slice(1).map((r) => r.getAttribute('aria-rowindex'))).toEqual(rows.slice(1).map((_, i) => String(i + 2)));
  });

  it('renders the rows of the scrolled-to region, down to the last one', async () => {
    const { newestFirst, table } = await openWholeHistory();

    scrollPageTo(MIDDLE * ROW_HEIGHT);
    const middle = readableRows(table).slice(1);
    expect(middle.length).toBeLessThan(100);
    expect(middle.map((r) => r.getAttribute('aria-rowindex'))).toContain(String(MIDDLE + 2));
    expect(middle.map(linkedId)).toContain(newestFirst[MIDDLE]);

    scrollPageTo(ROWS * ROW_HEIGHT);
    const end = readableRows(table).slice(1);
    expect(end.at(-1)).toHaveAttribute('aria-rowindex', String(ROWS + 1));
    expect(linkedId(end.at(-1)!)).toBe(newestFirst.at(-1));
  });

  it('keeps the row that holds keyboard focus while the page scrolls far away from it', async () => {
    const { newestFirst, table, user } = await openWholeHistory();

    scrollPageTo(0);
    const firstLink = within(readableRows(table)[1]!).getAllByRole('link')[0]!;
    act(() => firstLink.focus());
    expect(firstLink).toHaveFocus();

    scrollPageTo(ROWS * ROW_HEIGHT);
    expect(firstLink).toHaveFocus();
    const rendered = readableRows(table).slice(1).map(linkedId);
    expect(rendered).toContain(newestFirst[0]);
    expect(rendered).toContain(newestFirst.at(-1));

    // Once focus leaves the table, the row goes the way of the others.
    await user.click(screen.getByRole('heading', { level: 2, name: 'Operations' }));
    act(() => (document.activeElement as HTMLElement | null)?.blur());
    await waitFor(() => expect(readableRows(table).slice(1).map(linkedId)).not.toContain(newestFirst[0]));
  });
});
