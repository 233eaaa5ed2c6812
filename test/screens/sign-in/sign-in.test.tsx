import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now() });

describe('signing in', () => {
  it('asks for a key, says which API it talks to, and signs in on Enter', async () => {
    const { user } = renderApp('/');
    const input = screen.getByLabelText(/API key/);
    expect(input).toHaveAttribute('type', 'password');
    expect(screen.getByText(/Talking to the built-in simulator/)).toBeInTheDocument();

    await user.type(input, `${sim.apiKey}{Enter}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Projects' })).toBeInTheDocument();
    expect(sessionStorage.getItem('ops-console.api-key')).toBe(sim.apiKey);
    expect(localStorage.getItem('ops-console.api-key')).toBeNull();
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
    expect(sessionStorage.getItem('ops-console.api-key')).toBeNull();
  });

  it('tells a dead network apart from a rejected key, and keeps the key typed', async () => {
    sim.server.use(http.get('*/api/v2/auth', () => HttpResponse.error(), { once: true }));
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/Could not reach the API/);
    expect(alert).not.toHaveTextContent(/rejected/);
    expect(alert).not.toHaveTextContent(sim.apiKey);
    expect(screen.getByLabelText(/API key/)).toHaveValue(sim.apiKey);
  });

  it('tells a server failure apart from a rejected key', async () => {
    sim.server.use(
      http.get('*/api/v2/auth', () => HttpResponse.json({ code: '', message: 'boom' }, { status: 503 }), { once: true }),
    );
    const { user } = renderApp('/');
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(/having trouble \(HTTP 503\)/);
  });

  it('remembers the key on this device only when asked', async () => {
    const { user } = renderApp('/');
    await user.click(screen.getByRole('checkbox', { name: 'Remember on this device' }));
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    expect(localStorage.getItem('ops-console.api-key')).toBe(sim.apiKey);
  });

  it('signs out: forgets the key everywhere, empties the cache and shows the key screen', async () => {
    localStorage.setItem('ops-console.api-key', sim.apiKey);
    const { user } = renderApp('/');
    await screen.findAllByRole('link', { name: /.+/ });
    await user.click(screen.getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByText(/You signed out/)).toBeInTheDocument();
    expect(sessionStorage.getItem('ops-console.api-key')).toBeNull();
    expect(localStorage.getItem('ops-console.api-key')).toBeNull();
    // Signing in again fetches afresh: nothing was kept from the previous session.
    let projectRequests = 0;
    sim.server.events.on('request:start', ({ request }) => {
      if (new URL(request.url).pathname === '/api/v2/projects') projectRequests++;
    });
    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    await waitFor(() => expect(projectRequests).toBeGreaterThan(0));
    sim.server.events.removeAllListeners();
  });
});
