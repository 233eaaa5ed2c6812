import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { elapse, fakeConsoleClock } from '../../support/fake-clock';
import { polyfillModalDialogs } from '../../support/modal-dialogs';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// The history archive's page through the whole console, against the stand-in for the console server's
// /archive routes (test/support/archive-server.ts), with the production retry policy.

const sim = setupSimServer({ start: Date.now() });

beforeAll(() => polyfillModalDialogs());
beforeEach(() => {
  // Fast polls: the page polls the sources at the chosen interval while one is backfilling.
  localStorage.setItem('ops-console.poll-interval-ms', '100');
  sim.archive.reach = [sim.seed.projectIds.personal, sim.seed.projectIds.big];
});
afterEach(() => {
  vi.useRealTimers();
});

const sourcesTable = () => screen.findByRole('table', { name: 'Keys the archive reads with' });

function keepOther(state: 'following' | 'disabled', lastError: string | null = null) {
  sim.archive.sources.push({
    id: 'src-other',
    key: 'someone-elses-key',
    keyKind: 'organization',
    label: 'Acme Analytics',
    state,
    projects: 2,
    operations: 2_345,
    createdAt: new Date(Date.now() - 86_400_000).toISOString(),
    lastReadAt: new Date(Date.now() - 120_000).toISOString(),
    lastError,
  });
}

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
    expect(within(row).getByRole('cell', { name: '2' })).toBeInTheDocument();
    expect(screen.getByText(/History is being kept with “Demo User”/)).toBeInTheDocument();
    // Already kept: the button says why it cannot be pressed.
    expect(screen.getByRole('button', { name: 'Keep history' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Keep history' })).toHaveAccessibleDescription(/already kept/);

    // The collector moves on: the page shows it without a reload (it polls while backfilling).
    const kept = sim.archive.sources[0];
    if (!kept) throw new Error('no source kept');
    Object.assign(kept, { state: 'following', operations: 2_016, lastReadAt: new Date().toISOString() });
    await waitFor(() => expect(within(screen.getByRole('row', { name: /Demo User/ })).getByText('Following')).toBeInTheDocument());
    expect(within(screen.getByRole('row', { name: /Demo User/ })).getByText('2,016')).toBeInTheDocument();
    expect(within(screen.getByRole('row', { name: /Demo User/ })).getByText('just now', { exact: false })).toBeInTheDocument();
    // Not backfilling any more: no further polls, for a minute of the page's clock (600 intervals).
    const asked = sim.archive.requests.length;
    await elapse(60_000);
    expect(sim.archive.requests.length).toBe(asked);
  });

  it('removes the session’s own source after a confirmation that says what is deleted', async () => {
    sim.archive.sources.push({
      id: 'src-own',
      key: sim.apiKey,
      keyKind: 'personal',
      label: 'Demo User',
      state: 'following',
      projects: 6,
      operations: 2_100,
      createdAt: new Date().toISOString(),
      lastReadAt: new Date().toISOString(),
      lastError: null,
    });
    keepOther('following');
    const { user } = renderApp('/settings/archive', { apiKey: sim.apiKey });
    const table = await sourcesTable();
    // Only the session's own key may be removed from here.
    expect(within(table).getAllByRole('button', { name: 'Remove' })).toHaveLength(1);
    const other = within(table).getByRole('row', { name: /Acme Analytics/ });
    expect(within(other).getByText('Kept with another key')).toBeInTheDocument();
    expect(within(other).getByText('Organization key')).toBeInTheDocument();

    await user.click(within(table).getByRole('button', { name: 'Remove' }));
    const dialog = screen.getByRole('alertdialog', { name: /Stop keeping history with “Demo User”/ });
    expect(dialog).toHaveAccessibleDescription(/deletes the stored key/);
    expect(dialog).toHaveAccessibleDescription(/not revoked/);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('row', { name: /Demo User/ })).not.toBeInTheDocument());
    expect(sim.archive.sources.map((s) => s.id)).toEqual(['src-other']);
    expect(screen.getByRole('button', { name: 'Keep history' })).toBeEnabled();
    expect(sim.archive.requests.some((url) => url.pathname === '/archive/sources/src-own')).toBe(true);
  });

  it('says a disabled source’s key was rejected and that it stopped reading, in words', async () => {
    keepOther('disabled', 'The API rejected the key (401): the archive stopped reading with it.');
    renderApp('/settings/archive', { apiKey: sim.apiKey });
    const row = within(await sourcesTable()).getByRole('row', { name: /Acme Analytics/ });
    expect(within(row).getByText('Disabled')).toBeInTheDocument();
    expect(within(row).getByText(/the key was rejected \(401\): the archive stopped reading with it/)).toBeInTheDocument();
    expect(within(row).getByText('The API rejected the key (401): the archive stopped reading with it.')).toBeInTheDocument();
  });

  it('shows a failing list inline with Retry, never a blank page', async () => {
    sim.server.use(http.get('*/archive/sources', () => HttpResponse.json({ code: '', message: 'The archive store is not reachable.' }, { status: 503 })));
    const { user } = renderApp('/settings/archive', { apiKey: sim.apiKey });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the kept keys.');
    expect(alert).toHaveTextContent('The archive store is not reachable.');
    expect(screen.getByRole('heading', { level: 1, name: 'History archive' })).toBeInTheDocument();
    keepOther('following');
    sim.server.resetHandlers();
    await user.click(within(alert).getByRole('button', { name: /Retry/ }));
    expect(within(await sourcesTable()).getByRole('row', { name: /Acme Analytics/ })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
