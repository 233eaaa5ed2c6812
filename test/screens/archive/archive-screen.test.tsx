import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { KEY_REJECTED } from '../../../server/collector/source-reader';
import { keepSource, listSourceSummaries } from '../../../server/store/sources';
import { fingerprintOf, serverSeal } from '../../support/console-server';
import { elapse, fakeConsoleClock } from '../../support/fake-clock';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The history archive's page through the whole console, against the console server's own /archive routes
// and its collector reading the simulator, with the production retry policy. The server lists a session only
// the source kept with its own key: another person's key, label and reach are theirs.

// The collector follows at its default pace (a busy project every 5 s): a minute of the page's clock is a
// minute of the server's too.
const sim = setupSimServer({ start: Date.now(), store: true, env: { ARCHIVE_INTERVAL_MS: '5000' } });

beforeAll(() => polyfillModalDialogs());
let archiveRequests: URL[] = [];
beforeEach(() => {
  // Fast polls: the page polls the sources at the chosen interval while one is backfilling.
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  archiveRequests = [];
  sim.onPageRequest((request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith('/archive')) archiveRequests.push(url);
  });
});
afterEach(() => {
  vi.useRealTimers();
  sim.server.events.removeAllListeners();
});

const sourcesTable = () => screen.findByRole('table', { name: 'Keys the archive reads with' });
const ownRow = () => within(screen.getByRole('table', { name: 'Keys the archive reads with' })).getByRole('row', { name: /Demo User/ });

/** A key kept as the server keeps one, written through the store's own module (the collector then reads with it). */
async function keepWithStore(id: string, key: string, { keyKind = 'personal', label = 'Demo User' }: { keyKind?: string; label?: string } = {}) {
  await keepSource(await sim.console.db(), {
    id,
    fingerprint: fingerprintOf(key),
    sealedKey: serverSeal.seal('kept-key', key),
    keyKind,
    label,
    now: new Date(),
  });
  await sim.console.running.leader.wake();
}

/** Another person's organization key for Acme Analytics, kept by them. */
async function keepOther() {
  const other = sim.cp.issueApiKey({ kind: 'organization', orgId: sim.seed.orgIds.acme }, 'analytics');
  await keepWithStore('src-other', other.secret, { keyKind: 'organization', label: 'Acme Analytics' });
}

const keptIds = async () => (await listSourceSummaries(await sim.console.db())).map((source) => source.id);

describe('history archive', () => {
  it('says what keeping means before the button, keeps the session’s key and lists it, polling while it backfills', async () => {
    fakeConsoleClock();
    const { user } = renderApp('/settings/archive', { apiKey: sim.apiKey });
    expect(await screen.findByRole('heading', { level: 1, name: 'History archive' })).toBeInTheDocument();
    // Set by an effect once the screen has rendered, which may be a turn after the heading shows.
    await waitFor(() => expect(document.title).toBe('History archive · Ops Console'));
    expect(screen.getByRole('link', { name: 'History archive' })).toHaveAttribute('href', '/settings/archive');
    expect(await screen.findByText('No key is kept yet', { exact: false })).toBeInTheDocument();
    const terms = screen.getByText(/sealed \(encrypted\) with a key derived from its SESSION_SECRET, until you remove it/);
    expect(screen.getByText(/only to read/)).toBeInTheDocument();
    expect(screen.getByText(/keeps operations the platform deletes after 6 months/)).toBeInTheDocument();
    const keep = screen.getByRole('button', { name: 'Keep history' });
    // Said before the button, in reading order.
    expect(terms.compareDocumentPosition(keep) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    await user.click(keep);
    const row = within(await sourcesTable()).getByRole('row', { name: /Demo User/ });
    expect(within(row).getByText('Personal key')).toBeInTheDocument();
    expect(within(row).getByText('Backfilling')).toBeInTheDocument();
    expect(within(row).getByText('Not yet')).toBeInTheDocument();
    // Said once the keep has answered, which may be a moment after the list shows the row.
    expect(await screen.findByText(/History is being kept with “Demo User”/)).toBeInTheDocument();
    // Already kept: the button says why it cannot be pressed.
    expect(screen.getByRole('button', { name: 'Keep history' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Keep history' })).toHaveAccessibleDescription(/already kept/);

    // The collector reads the simulator: the page shows it without a reload (it polls while backfilling),
    // with what the key reaches there.
    await waitFor(() => expect(within(ownRow()).getByText('Following')).toBeInTheDocument());
    const reached = Object.values(sim.seed.projectIds);
    const operations = reached.reduce((sum, id) => sum + sim.cp.operationsOf(id).length, 0);
    expect(within(ownRow()).getByRole('cell', { name: String(reached.length) })).toBeInTheDocument();
    expect(within(ownRow()).getByText(operations.toLocaleString('en-US'))).toBeInTheDocument();
    expect(within(ownRow()).getByText('just now', { exact: false })).toBeInTheDocument();
    // Not backfilling any more: no further polls, for a minute of the page's clock (600 intervals).
    const asked = archiveRequests.length;
    await elapse(60_000);
    expect(archiveRequests.length).toBe(asked);
  });

  it('removes the session’s own source after a confirmation that says what is deleted', async () => {
    await keepWithStore('src-own', sim.apiKey);
    await keepOther();
    const { user } = renderApp('/settings/archive', { apiKey: sim.apiKey });
    const table = await sourcesTable();
    // Only the session's own key is listed (and may be removed from here): another person's is theirs.
    expect(within(table).getAllByRole('button', { name: 'Remove' })).toHaveLength(1);
    expect(within(table).queryByRole('row', { name: /Acme Analytics/ })).not.toBeInTheDocument();

    await user.click(within(table).getByRole('button', { name: 'Remove' }));
    const dialog = screen.getByRole('alertdialog', { name: /Stop keeping history with “Demo User”/ });
    expect(dialog).toHaveAccessibleDescription(/deletes the stored key/);
    expect(dialog).toHaveAccessibleDescription(/not revoked/);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('row', { name: /Demo User/ })).not.toBeInTheDocument());
    expect(await screen.findByText('No key is kept yet', { exact: false })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Keep history' })).toBeEnabled();
    expect(archiveRequests.some((url) => url.pathname === '/archive/sources/src-own')).toBe(true);
    // The other person's key is still kept.
    expect(await keptIds()).toEqual(['src-other']);
  });

  it('says a disabled source’s key was rejected and that it stopped reading, in words', async () => {
    // The session's key, kept, then revoked elsewhere: the collector's next read with it is refused (401).
    const key = sim.cp.issueApiKey({ kind: 'personal', userId: sim.seed.userId }, 'soon revoked');
    sim.cp.revokeApiKey(key.id);
    await keepWithStore('src-own', key.secret);
    renderApp('/settings/archive', { apiKey: key.secret });
    await sourcesTable();
    await waitFor(() => expect(within(ownRow()).getByText('Disabled')).toBeInTheDocument());
    expect(within(ownRow()).getByText(/the key was rejected \(401\): the archive stopped reading with it/)).toBeInTheDocument();
    expect(within(ownRow()).getByText(KEY_REJECTED)).toBeInTheDocument();
  });

  it('shows a failing list inline with Retry, never a blank page', async () => {
    sim.server.use(http.get('*/archive/sources', () => HttpResponse.json({ code: '', message: 'The archive store is not reachable.' }, { status: 503 })));
    const { user } = renderApp('/settings/archive', { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the kept keys.');
    expect(alert).toHaveTextContent('The archive store is not reachable.');
    expect(screen.getByRole('heading', { level: 1, name: 'History archive' })).toBeInTheDocument();
    await keepWithStore('src-own', sim.apiKey);
    sim.server.resetHandlers();
    await user.click(within(alert).getByRole('button', { name: /Retry/ }));
    expect(within(await sourcesTable()).getByRole('row', { name: /Demo User/ })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
