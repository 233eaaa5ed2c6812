import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { addHistory, newProject } from '../features/history/history-support';
import { renderApp } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';

// The console's store (Postgres) down while the API works: the project and Activity pages did load, so no
// page-wide "Could not load: The server is busy (503)" sits above the inline note that says which part is down and
// what the page does instead (docs/console.md).

const sim = setupSimServer({ start: Date.now(), store: true });
const STORE_DOWN = "The console's store (postgres://db.internal:5432/console) is unavailable: connection refused.";

/** Every /archive read answers as the console's server does with its store down. */
function storeDown() {
  sim.server.use(http.all('*/archive/*', () => HttpResponse.json({ code: 'store_unavailable', message: STORE_DOWN }, { status: 503 })));
}

/** The page-wide notices' text (what the shell shows above every page). */
const notices = () => document.querySelector('.notices')?.textContent ?? '';

describe('with the store down', () => {
  it('a filtered history says the archive is down and that it searches the API instead, once', async () => {
    const project = newProject(sim);
    addHistory(sim, project.id, 5);
    storeDown();
    renderApp(`/projects/${project.id}?status=failed`, { apiKey: sim.apiKey });
    expect(
      await screen.findByText(/The history archive could not answer \(The console's store .* is unavailable.*\): searching through the API instead/),
    ).toBeInTheDocument();
    // A notice comes with the first failed try, as the inline note does: none is shown page-wide.
    expect(notices()).not.toMatch(/Could not load/);
  });

  it('Activity says the archive is down and that it reads every project from the API, once', async () => {
    storeDown();
    renderApp('/activity', { apiKey: sim.apiKey });
    expect(
      await screen.findByText(
        /The history archive cannot answer \(The console's store .* is unavailable.*\): every project is read from the API instead, within the budget\./,
      ),
    ).toBeInTheDocument();
    await waitFor(() => expect(document.querySelector('.empty, .activity-table')).not.toBeNull());
    expect(notices()).not.toMatch(/Could not load/);
  });
});
