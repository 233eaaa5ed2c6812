import { screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/api/schemas';
import { isInFlight } from '../../../src/model/operation-status';
import { upsertOperations } from '../../../server/store/operations';
import { keepHistory } from '../../support/archive';
import { holdSession } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// Activity with the history archive (docs/archive.md): the projects it covers come from GET /archive/activity
// (no API request spent on them); the scheduler reads only the others. The archive is the console server's
// own: the session's key kept, its collector reading the simulator, Activity answered from its store (the
// in-flight rule in its SQL form). A fast poll interval and a large budget keep the test short.

const sim = setupSimServer({ start: Date.now(), store: true });
/** The demo key's projects: two personal, two of Acme, two of Northwind. */
const PROJECTS = 6;
const HOUR = 60 * 60_000;

let apiRequests: URL[] = [];
beforeEach(() => {
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  localStorage.setItem('ops-console.activity-budget-per-minute', '3000');
  apiRequests = [];
  sim.onPageRequest((request) => {
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
const nameOf = (projectId: string) => sim.cp.findProject(projectId)?.name ?? projectId;

describe('activity with the history archive', () => {
  it('takes covered projects from the archive and reads only the others from the API', async () => {
    // The collector reads the key's projects in the order of their ids; the last one's first whole read is
    // held, so the kept key is still backfilling (not yet followed) while every project it listed is covered.
    const [first = '', ...rest] = Object.values(sim.seed.projectIds).sort();
    const last = rest.at(-1) ?? '';
    const archived = sim.cp.addOperation({ projectId: first, action: 'apply_config', durationMs: 2 * HOUR });
    const release: { now: () => void } = { now: () => undefined };
    const held = new Promise<void>((resolve) => (release.now = resolve));
    sim.server.use(
      http.get(`*/api/v2/projects/${last}/operations`, async ({ request }) => {
        if (new URL(request.url).searchParams.get('limit') === '1000') await held;
        return undefined;
      }),
    );
    holdSession(sim.apiKey);
    await keepHistory(sim.console, { until: 'listed', projects: PROJECTS });
    // A project the key reaches since the archive listed them: not covered yet.
    const added = sim.cp.addProject({ name: 'added-since', ownerId: sim.seed.userId, compute: false });
    const fromApi = sim.cp.addOperation({ projectId: added.id, action: 'create_branch', durationMs: 2 * HOUR });

    renderApp('/activity', { apiKey: sim.apiKey });
    await waitFor(() => expect(rowOf(archived.id)).not.toBeNull());
    await waitFor(() => expect(rowOf(fromApi.id)).not.toBeNull());
    const archivedRow = rowOf(archived.id) ?? document.body;
    expect(within(archivedRow).getByRole('link', { name: nameOf(first) })).toHaveAttribute('href', `/projects/${first}`);
    expect(within(archivedRow).getByText('In progress')).toBeInTheDocument();

    // Only the uncovered project is read; the covered ones never are, however long the view runs.
    await waitFor(() => expect([...new Set(operationReads().map(projectOf))]).toEqual([added.id]));
    const note = screen.getByRole('note');
    const covered = [first, ...rest].map(nameOf).join(', ');
    expect(note).toHaveTextContent(`From the history archive (no API request spent on them): ${covered}.`);
    expect(note).toHaveTextContent('The other project is read from the API within the budget.');

    // The archive reads on (and follows the key once its last project is read), polled at the interval: the
    // archived operation's end shows without an API read of its project.
    release.now();
    sim.clock.advance(2 * HOUR + 60_000);
    await waitFor(() => expect(within(rowOf(archived.id) ?? document.body).getByText('OK')).toBeInTheDocument());
    expect(operationReads().some((url) => projectOf(url) === first)).toBe(false);
  });

  it('sends no API request at all when the session’s own key is kept and followed', async () => {
    const op = sim.cp.addOperation({ projectId: sim.seed.projectIds.storefront, action: 'apply_config', durationMs: HOUR });
    holdSession(sim.apiKey);
    await keepHistory(sim.console);

    renderApp('/activity', { apiKey: sim.apiKey });
    await waitFor(() => expect(rowOf(op.id)).not.toBeNull());
    expect(screen.getByRole('note')).toHaveTextContent('this view sends no request to the API');
    let archiveAsked = 0;
    sim.onPageRequest((request) => {
      if (new URL(request.url).pathname === '/archive/activity') archiveAsked++;
    });
    await waitFor(() => expect(archiveAsked).toBeGreaterThan(2));
    expect(apiRequests.map((url) => url.pathname)).toEqual([]);
  });

  it('shows, from the archive, a failed operation awaiting its retry and one with a status the console does not know, as the page does', async () => {
    const { personal } = sim.seed.projectIds;
    holdSession(sim.apiKey);
    await keepHistory(sim.console);
    // Operations the API listed three days ago (older than Activity's day of recent changes), as the collector
    // writes them: in flight only by the status rules (a retry still ahead; a status this console does not know),
    // and a failure the platform is done with.
    const now = Date.now();
    const base = {
      project_id: personal,
      total_duration_ms: 4_000,
      created_at: new Date(now - 72 * HOUR).toISOString(),
      updated_at: new Date(now - 71 * HOUR).toISOString(),
    };
    const awaitingRetry: Operation = {
      ...base,
      id: 'op-awaiting-retry',
      action: 'apply_config',
      status: 'failed',
      failures_count: 3,
      error: 'pageserver unavailable',
      retry_at: new Date(now + HOUR).toISOString(),
    };
    const unknownStatus: Operation = { ...base, id: 'op-new-status', action: 'replicate_storage', status: 'replicating', failures_count: 0 };
    const over: Operation = {
      ...base,
      id: 'op-failure-over',
      action: 'apply_config',
      status: 'failed',
      failures_count: 1,
      error: 'gave up',
      retry_at: new Date(now - 70 * HOUR).toISOString(),
    };
    // What the page's own rule says of each (src/model/operation-status.ts): the archive must say the same.
    expect([awaitingRetry, unknownStatus, over].map((op) => isInFlight(op, now))).toEqual([true, true, false]);
    const listed = [awaitingRetry, unknownStatus, over].map((operation) => ({ operation, body: JSON.parse(JSON.stringify(operation)) as unknown }));
    await upsertOperations(await sim.console.db(), personal, listed, new Date(now - 70 * HOUR), false);

    renderApp('/activity', { apiKey: sim.apiKey });
    await waitFor(() => expect(rowOf(awaitingRetry.id)).not.toBeNull());
    const retrying = rowOf(awaitingRetry.id) ?? document.body;
    expect(within(retrying).getByText('Error')).toBeInTheDocument();
    expect(within(retrying).getByRole('button', { name: /^Watch Apply config/ })).toBeInTheDocument();
    const unknown = rowOf(unknownStatus.id) ?? document.body;
    expect(within(unknown).getByText('replicating')).toBeInTheDocument();
    expect(within(unknown).getByRole('button', { name: /^Watch Replicate storage/ })).toBeInTheDocument();
    expect(rowOf(over.id)).toBeNull();
    // All of it from the archive: the key is followed, the view sends no request to the API.
    expect(apiRequests).toEqual([]);
  });
});
