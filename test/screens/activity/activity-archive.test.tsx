import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// Activity with the history archive (issue 22): the projects it covers come from GET /archive/activity
// (no API request spent on them); the scheduler reads only the others. A fast poll interval and a large
// budget keep the test short.

const sim = setupSimServer({ start: Date.now() });
/** The demo key's projects: two personal, two of Acme, two of Northwind. */
const PROJECTS = 6;

let apiRequests: URL[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  localStorage.setItem('ops-console.activity-budget-per-minute', '3000');
  apiRequests = [];
  sim.server.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/api/v2/')) apiRequests.push(url);
  });
});
afterEach(() => {
  sim.server.events.removeAllListeners();
});

const operationReads = () => apiRequests.filter((url) => /^\/api\/v2\/projects\/[^/]+\/operations$/.test(url.pathname));
const projectOf = (url: URL) => url.pathname.split('/')[4] ?? '';
const rowOf = (operationId: string) => document.querySelector(`a[href$="/operations/${operationId}"]`)?.closest('tr') ?? null;

describe('activity with the history archive', () => {
  it('takes covered projects from the archive and reads only the others from the API', async () => {
    // Small projects: the stand-in reads its answer from the simulator on every poll, in the test's own thread.
    const { personal, staging } = sim.seed.projectIds;
    sim.archive.cover(personal, { lastReadAt: new Date().toISOString() });
    sim.archive.cover(staging, { lastReadAt: new Date().toISOString() });
    const archived = sim.cp.addOperation({ projectId: personal, action: 'apply_config', durationMs: 60 * 60_000 });
    const fromApi = sim.cp.addOperation({ projectId: sim.seed.projectIds.empty, action: 'create_branch', durationMs: 60 * 60_000 });

    renderApp('/activity', { apiKey: sim.apiKey });
    await waitFor(() => expect(rowOf(archived.id)).not.toBeNull(), { timeout: 5_000 });
    await waitFor(() => expect(rowOf(fromApi.id)).not.toBeNull(), { timeout: 5_000 });
    const archivedRow = rowOf(archived.id) ?? document.body;
    expect(within(archivedRow).getByRole('link', { name: 'blog-backend' })).toHaveAttribute('href', `/projects/${personal}`);
    expect(within(archivedRow).getByText('In progress')).toBeInTheDocument();

    // Every uncovered project is read; the covered ones never are, however long the view runs.
    await waitFor(() => expect([...new Set(operationReads().map(projectOf))].sort()).toEqual(Object.values(sim.seed.projectIds).filter((id) => id !== personal && id !== staging).sort()), { timeout: 5_000 });
    const read = new Set(operationReads().map(projectOf));
    expect(read.has(personal)).toBe(false);
    expect(read.has(staging)).toBe(false);
    const note = screen.getByRole('note');
    expect(note).toHaveTextContent(/From the history archive \(no API request spent on them\): blog-backend, acme-analytics-staging\./);
    expect(note).toHaveTextContent('The other 4 projects are read from the API within the budget.');
    // The archive is polled at the interval: the archived operation's end shows without an API read.
    sim.clock.advance(2 * 60 * 60_000);
    await waitFor(() => expect(within(rowOf(archived.id) ?? document.body).getByText('OK')).toBeInTheDocument(), { timeout: 5_000 });
    expect(operationReads().some((url) => projectOf(url) === personal)).toBe(false);
  });

  it('sends no API request at all when the session’s own key is kept and followed', async () => {
    for (const id of Object.values(sim.seed.projectIds)) sim.archive.cover(id);
    sim.archive.sources.push({
      id: 'src-own',
      key: sim.apiKey,
      keyKind: 'personal',
      label: 'Demo User',
      state: 'following',
      projects: PROJECTS,
      operations: 2_100,
      createdAt: new Date().toISOString(),
      lastReadAt: new Date().toISOString(),
      lastError: null,
    });
    const op = sim.cp.addOperation({ projectId: sim.seed.projectIds.storefront, action: 'apply_config', durationMs: 60 * 60_000 });

    renderApp('/activity', { apiKey: sim.apiKey });
    await waitFor(() => expect(rowOf(op.id)).not.toBeNull(), { timeout: 5_000 });
    expect(screen.getByRole('note')).toHaveTextContent('this view sends no request to the API');
    const asked = sim.archive.requests.filter((url) => url.pathname === '/archive/activity').length;
    await waitFor(() => expect(sim.archive.requests.filter((url) => url.pathname === '/archive/activity').length).toBeGreaterThan(asked + 2));
    expect(apiRequests.map((url) => url.pathname)).toEqual([]);
  });
});
