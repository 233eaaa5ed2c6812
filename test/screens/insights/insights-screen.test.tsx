import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { WireOperation } from '../../../sim/wire';
import { formatDuration } from '../../../src/lib/format';
import { newProject } from '../../features/history/history-support';
import { keepHistory } from '../../support/archive';
import { holdSession } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The insights screens through the whole console, against the console server's own routes and its collector
// reading the simulator (a user with only the test's project): the figures a person reads are those of the
// operations the simulator holds, Runs and Failed link to exactly those operations, and a project the archive
// does not hold says so and offers Keep history.

const sim = setupSimServer({ start: Date.now(), seed: 'empty', store: true, env: { ARCHIVE_INTERVAL_MS: '100' } });
beforeEach(() => {
  // The page asks again at this interval while the archive is still reading.
  localStorage.setItem('ops-console.poll-interval-ms', '100');
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ACTIONS = ['apply_config', 'create_branch', 'suspend_compute'];
const STATUSES = ['finished', 'finished', 'failed', 'finished', 'error', 'cancelled', 'finished', 'skipped'] as const;

/** A project with a week of history (and a little of the week before), three actions, every outcome. */
function projectWithHistory() {
  const project = newProject(sim, 'insights-test');
  const now = sim.clock.now();
  for (let i = 0; i < 44; i++) {
    sim.cp.addOperation({
      projectId: project.id,
      action: ACTIONS[i % 3] ?? 'apply_config',
      status: STATUSES[i % STATUSES.length],
      durationMs: 800 + ((i * 53) % 17) * 450,
      createdAt: now - HOUR - i * 3.7 * HOUR,
    });
  }
  for (let i = 0; i < 9; i++)
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'finished', durationMs: 1_000, createdAt: now - 8 * DAY - i * HOUR });
  return project;
}

/** What the history's filter holds of `operations`: created in [from, to] read to the second. */
function within_(operations: readonly WireOperation[], href: string): WireOperation[] {
  const params = new URL(href, 'http://console.test').searchParams;
  const start = Date.parse(params.get('from') ?? '');
  const end = Date.parse(params.get('to') ?? '') + 1_000;
  const statuses = params.get('status')?.split(',');
  const actions = params.get('action')?.split(',');
  return operations.filter((op) => {
    const at = Date.parse(op.created_at);
    return at >= start && at < end && (!statuses || statuses.includes(op.status)) && (!actions || actions.includes(op.action));
  });
}

const nearestRank = (values: readonly number[], fraction: number) => [...values].sort((a, b) => a - b)[Math.ceil(fraction * values.length) - 1] ?? NaN;
const cellOf = (row: HTMLElement, column: string) => {
  const headers = within(screen.getByRole('table', { name: /Operations per (action|project)/ }))
    .getAllByRole('columnheader')
    .map((th) => th.textContent);
  return within(row).getAllByRole('cell')[headers.indexOf(column) - 1] as HTMLElement;
};

describe('insights', () => {
  it('says a project the archive does not hold has nothing to count, keeps history on request, then shows each action’s figures', async () => {
    const project = projectWithHistory();
    const { user } = renderApp(`/projects/${project.id}/insights`, { apiKey: sim.apiKey });
    expect(await screen.findByRole('heading', { level: 1, name: 'Insights' })).toBeInTheDocument();
    expect(await screen.findByText('insights-test is not in the history archive: no kept key reads it, so there is nothing to count.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Keep history' }));

    // The page asks again while the archive reads, and shows the figures once it has.
    const table = await screen.findByRole('table', { name: /Operations per action, the last 7 days/ }, { timeout: 20_000 });
    await waitFor(() => expect(screen.queryByText(/still reading this project/)).not.toBeInTheDocument(), { timeout: 20_000 });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Action', 'Runs', 'Failed', 'Failure rate', 'p50', 'p95', 'Queue p50', 'Retried']);
    const operations = sim.cp.operationsOf(project.id);
    for (const action of ACTIONS) {
      const row = within(table).getByRole('row', { name: new RegExp(`^${action.replace('_', ' ')}`, 'i') });
      const runsLink = within(cellOf(row, 'Runs')).getByRole('link');
      const failedLink = within(cellOf(row, 'Failed')).getByRole('link');
      const runs = within_(operations, runsLink.getAttribute('href') ?? '');
      const failed = within_(operations, failedLink.getAttribute('href') ?? '');
      // The links are the history filtered to exactly those: this project, this action, the window; failed or error.
      expect(runsLink.getAttribute('href')).toMatch(new RegExp(`^/projects/${project.id}\\?action=${action}&from=[^&]+&to=[^&]+$`));
      expect(failedLink.getAttribute('href')).toMatch(new RegExp(`^/projects/${project.id}\\?status=failed%2Cerror&action=${action}&from=[^&]+&to=[^&]+$`));
      expect(runs.length).toBeGreaterThan(5);
      expect(runsLink).toHaveTextContent(new RegExp(`^${runs.length}$`));
      expect(failedLink).toHaveTextContent(new RegExp(`^${failed.length}$`));
      expect(failed.every((op) => op.status === 'failed' || op.status === 'error')).toBe(true);
      const counted = runs.filter((op) => op.status !== 'cancelled' && op.status !== 'skipped').length;
      expect(cellOf(row, 'Failure rate')).toHaveTextContent(`${((failed.length / counted) * 100).toFixed(1)}%`);
      const durations = runs.filter((op) => op.status === 'finished').map((op) => op.total_duration_ms);
      expect(cellOf(row, 'p50')).toHaveTextContent(formatDuration(nearestRank(durations, 0.5)));
      expect(cellOf(row, 'p95')).toHaveTextContent(formatDuration(nearestRank(durations, 0.95)));
      // Nothing was seen waiting to run: no queue to measure, and the cell says why.
      expect(cellOf(row, 'Queue p50')).toHaveTextContent(/^— not seen: operations queue for less than the collector's interval/);
      // A figure and its change never wrap between a number and its unit.
      for (const name of ['p50', 'p95', 'Queue p50']) expect(cellOf(row, name).textContent).not.toMatch(/\d (ms|s|min|h|points)\b/);
    }
    // The change against the week before, in words and signs: apply config had 9 runs then.
    const apply = within(table).getByRole('row', { name: /^Apply config/ });
    const applyRuns = Number(within(cellOf(apply, 'Runs')).getByRole('link').textContent);
    expect(cellOf(apply, 'Runs')).toHaveTextContent(`${applyRuns}; against the 7 days before: +${applyRuns - 9} from 9`);
    expect(screen.getByRole('link', { name: 'Download this table as CSV' })).toHaveAttribute(
      'href',
      `/archive/projects/${project.id}/insights?window=7d&format=csv`,
    );
  }, 60_000);

  it('is found from a project’s page and from the main navigation', async () => {
    // The project's page at its usual pace: this test waits for no archive.
    localStorage.removeItem('ops-console.poll-interval-ms');
    const project = newProject(sim, 'found-here');
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await screen.findByRole('link', { name: 'Insights of this project' }));
    expect(await screen.findByText('found-here is not in the history archive: no kept key reads it, so there is nothing to count.')).toBeInTheDocument();
    expect(window.location.pathname).toBe(`/projects/${project.id}/insights`);
    await user.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Insights' }));
    expect(await screen.findByText('No project this API key can read is in the history archive yet, so there is nothing to count.')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/insights');
  }, 30_000);

  it('draws operations per day by status as a named SVG graphic, each bar a link to that day’s history, its numbers in a table', async () => {
    const project = projectWithHistory();
    holdSession(sim.apiKey);
    await keepHistory(sim.console);
    renderApp(`/projects/${project.id}/insights?window=30d`, { apiKey: sim.apiKey });
    const chart = await screen.findByRole('graphics-document', { name: /^Operations per day by status, the last 30 days \(UTC\)/ });
    const bars = within(chart).getAllByRole('link');
    const operations = sim.cp.operationsOf(project.id);
    // A bar for each day with operations, linking to that day's history; its name says its numbers in words.
    const days = new Set(operations.map((op) => op.created_at.slice(0, 10)));
    expect(bars).toHaveLength(days.size);
    for (const bar of bars) {
      const href = bar.getAttribute('href') ?? '';
      expect(href).toMatch(new RegExp(`^/projects/${project.id}\\?from=[^&]+&to=[^&]+$`));
      const day = within_(operations, href);
      expect(bar).toHaveAccessibleName(new RegExp(`: ${day.length} operations?`));
    }
    const numbers = screen.getByRole('table', { name: 'Operations per day by status (UTC)' });
    const rows = within(numbers).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(31);
    // Each day's row says what its bar says, and the days make up the whole window.
    for (const row of rows) {
      const day = within_(operations, within(row).getByRole('rowheader').querySelector('a')?.getAttribute('href') ?? '');
      expect(within(row).getAllByRole('cell').at(-1)).toHaveTextContent(String(day.length));
    }
    const first = new URL(
      within(rows[0] as HTMLElement)
        .getByRole('rowheader')
        .querySelector('a')?.href ?? '',
      'http://console.test',
    ).searchParams.get('from');
    const last = new URL(
      within(rows.at(-1) as HTMLElement)
        .getByRole('rowheader')
        .querySelector('a')?.href ?? '',
      'http://console.test',
    ).searchParams.get('to');
    expect(Date.parse(last ?? '') + 1_000 - Date.parse(first ?? '')).toBe(30 * DAY);
  }, 60_000);

  it('lists each archived project on /insights, its name linking to its own insights, the window in the address', async () => {
    const project = projectWithHistory();
    holdSession(sim.apiKey);
    await keepHistory(sim.console);
    const { user } = renderApp('/insights?window=30d', { apiKey: sim.apiKey });
    const table = await screen.findByRole('table', { name: /Operations per project, the last 30 days/ });
    expect(within(table).getAllByRole('columnheader')[0]).toHaveTextContent('Project');
    expect(within(table).getByRole('link', { name: 'insights-test' })).toHaveAttribute('href', `/projects/${project.id}/insights?window=30d`);
    const windows = screen.getByRole('navigation', { name: 'Window' });
    expect(within(windows).getByRole('link', { name: '30 days' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'Download this table as CSV' })).toHaveAttribute('href', '/archive/insights?window=30d&format=csv');

    await user.click(within(windows).getByRole('link', { name: '24 hours' }));
    expect(await screen.findByRole('table', { name: /Operations per project, the last 24 hours/ })).toBeInTheDocument();
    expect(window.location.search).toBe('?window=24h');
    const row = within(screen.getByRole('table', { name: /Operations per project/ })).getByRole('row', { name: /insights-test/ });
    expect(within(cellOf(row, 'Runs')).getByRole('link')).toHaveTextContent(
      String(within_(sim.cp.operationsOf(project.id), within(cellOf(row, 'Runs')).getByRole('link').getAttribute('href') ?? '').length),
    );
  }, 60_000);
});
