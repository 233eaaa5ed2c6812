import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { KEY_REJECTED_MESSAGE } from '../../src/config/session';
import { heldKey, holdSessionFromBeforeRestart } from '../support/console-server';
import { renderApp } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';

// A 401 from the console's own server (the session could not be opened: a restart, an expiry) is not
// the API refusing the key: the key screen says which, and only the API's 401 blames the key.

const sim = setupSimServer({ start: Date.now() });

describe('a session that ends without the key being refused', () => {
  it('says the server restarted, not that the key was rejected', async () => {
    // The cookie was sealed under a secret the server no longer has (it made a new one as it restarted).
    renderApp('/', { session: holdSessionFromBeforeRestart(sim.apiKey) });

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("Your session ended: the console's server restarted. Sign in again.");
    expect(alert).not.toHaveTextContent(/rejected/i);
    expect(screen.getByLabelText(/API key/)).toBeInTheDocument();
  });

  it('still blames the key when the API itself answers 401', async () => {
    sim.server.use(http.get('*/api/v2/projects', () => HttpResponse.json({ code: '', message: 'authentication failed' }, { status: 401 })));
    renderApp('/', { apiKey: sim.apiKey });

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/rejected \(invalid or revoked\)/);
    expect(KEY_REJECTED_MESSAGE).toMatch(/rejected \(invalid or revoked\)/);
    // The server ended the session on the API's 401 (its answer expired the cookie).
    expect(heldKey()).toBeNull();
  });
});
