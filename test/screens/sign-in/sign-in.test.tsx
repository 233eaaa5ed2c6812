import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { App } from '../../../src/app/app';
import { createAppState } from '../../../src/app/app-state';
import { heldKey } from '../../support/console-server';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });

/** Everything the page itself could keep: both storages. The key belongs to the server alone. */
function pageStorage(): string {
  return JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)]);
}

describe('signing in', () => {
  it('asks for a key, says which API it talks to, and signs in on Enter; the server holds the key, the page does not', async () => {
    const sessionPosts: unknown[] = [];
    sim.onPageRequest((request) => {
      if (new URL(request.url).pathname === '/session') sessionPosts.push(request.method);
    });
    const { user } = renderApp('/');
    const input = screen.getByLabelText(/API key/);
    expect(input).toHaveAttribute('type', 'password');
    expect(screen.getByText(/Talking to the built-in simulator/)).toBeInTheDocument();

    await user.type(input, `${sim.apiKey}{Enter}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Projects' })).toBeInTheDocument();
    expect(heldKey()).toBe(sim.apiKey);
    expect(sessionPosts).toEqual(['POST']);
    expect(pageStorage()).not.toContain(sim.apiKey);
    sim.server.events.removeAllListeners();
  });

  it('is a real form posting to the server, so it works before the script has arrived', () => {
    renderApp('/projects/p-1?status=failed');
    const form = screen.getByLabelText(/API key/).closest('form');
    expect(form).toHaveAttribute('method', 'post');
    expect(form).toHaveAttribute('action', '/session');
    expect(form?.querySelector('input[name="return-to"]')).toHaveValue('/projects/p-1?status=failed');
    expect(screen.getByRole('checkbox', { name: 'Remember on this device' })).toHaveAttribute('name', 'remember');
  });

  it('shows why a sign-in posted before the script arrived failed, on the first key screen only', async () => {
    window.history.pushState({}, '', '/');
    const state = createAppState({ signInProblem: { kind: 'rejected', message: 'This key was rejected (invalid or revoked).', requestId: 'req-1' } });
    const user = userEvent.setup();
    render(<App state={state} />);
    expect(screen.getByRole('alert')).toHaveTextContent('This key was rejected (invalid or revoked).Request id: req-1');
    expect(screen.getByLabelText(/API key/)).toHaveAttribute('aria-invalid', 'true');

    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText(/You signed out/)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows and hides the key on request', async () => {
    const { user } = renderApp('/');
    await user.click(screen.getByRole('button', { name: 'Show key' }));
    expect(screen.getByLabelText(/API key/)).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide key' }));
    expect(screen.getByLabelText(/API key/)).toHaveAttribute('type', 'password');
  });

  it('rejects a wrong key with an alert and keeps what was typed', async () => {
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), 'not-a-real-key{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('This key was rejected (invalid or revoked).');
    expect(screen.getByLabelText(/API key/)).toHaveValue('not-a-real-key');
    expect(heldKey()).toBeNull();
  });

  it('says what is wrong with a key holding a non-ASCII character, without sending it anywhere', async () => {
    const posts: string[] = [];
    sim.onPageRequest((request) => void posts.push(new URL(request.url).pathname));
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), 'clé-de-démo{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('contains “é” (U+00E9)');
    expect(alert).not.toHaveTextContent(/could not reach/i);
    expect(screen.getByLabelText(/API key/)).toHaveAttribute('aria-invalid', 'true');
    expect(posts).toEqual([]);
    sim.server.events.removeAllListeners();
  });

  it('names the cause when the server cannot reach the API, and keeps the key typed', async () => {
    sim.server.use(http.get('*/api/v2/auth', () => HttpResponse.error(), { once: true }));
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    const alert = await screen.findByRole('alert');
    // What the console's server says of a dropped connection from the API (server/proxy/api-reader.ts).
    expect(alert).toHaveTextContent('The API closed the connection without answering. The key was not checked.');
    expect(alert).not.toHaveTextContent(/rejected/);
    expect(alert).not.toHaveTextContent(sim.apiKey);
    expect(screen.getByLabelText(/API key/)).toHaveValue(sim.apiKey);
  });

  it('tells a server failure apart from a rejected key', async () => {
    sim.server.use(http.get('*/api/v2/auth', () => HttpResponse.json({ code: '', message: 'boom' }, { status: 503 }), { once: true }));
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(/having trouble \(HTTP 503: boom\)/);
  });

  it('lets a check that hangs be cancelled, and then signs in on the next try', async () => {
    sim.server.use(http.get('*/api/v2/auth', () => delay('infinite'), { once: true }));
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    expect(await screen.findByRole('button', { name: 'Checking key…' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Cancelled: the key was not checked.');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Projects' })).toBeInTheDocument();
  });

  it('asks the server for a lasting session only when "Remember on this device" is on', async () => {
    const asked: unknown[] = [];
    sim.onPageRequest((request) => {
      if (new URL(request.url).pathname === '/session')
        void request
          .clone()
          .json()
          .then((body: { remember: unknown }) => asked.push(body.remember));
    });
    const { user } = renderApp('/');
    await user.click(screen.getByRole('checkbox', { name: 'Remember on this device' }));
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    await waitFor(() => expect(asked).toEqual([true]));
    expect(pageStorage()).not.toContain(sim.apiKey);
    sim.server.events.removeAllListeners();
  });

  it('signs out: ends the server session, empties the cache and shows the key screen', async () => {
    const { user } = renderApp('/', { apiKey: sim.apiKey });
    await screen.findAllByRole('link', { name: /.+/ });
    await user.click(screen.getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByText(/You signed out/)).toBeInTheDocument();
    await waitFor(() => expect(heldKey()).toBeNull());
    // Signing in again fetches afresh: nothing was kept from the previous session.
    let projectRequests = 0;
    sim.onPageRequest((request) => {
      if (new URL(request.url).pathname === '/api/v2/projects') projectRequests++;
    });
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    await waitFor(() => expect(projectRequests).toBeGreaterThan(0));
    sim.server.events.removeAllListeners();
  });
});
