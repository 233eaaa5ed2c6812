import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App, createAppState } from '../../src/app/app';
import { startEarly } from '../../src/app/early-start';
import { SESSION_KEY_STORAGE } from '../support/render-app';
import { setupSimServer } from '../support/sim-server';

const sim = setupSimServer({ start: Date.now() });

let requests: URL[] = [];
beforeEach(() => {
  requests = [];
  sim.server.events.on('request:start', ({ request }) => {
    requests.push(new URL(request.url));
  });
});
afterEach(() => sim.server.events.removeAllListeners());

function projectWithHistory() {
  const project = sim.cp.addProject({ name: 'Early start', ownerId: sim.seed.userId, compute: false });
  const start = sim.clock.now() - 3_600_000;
  for (let i = 0; i < 3; i++) {
    sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'finished', createdAt: start + i * 60_000 });
  }
  return project;
}

/**
 * What main.tsx and mountApp do on a deep link: start early, make the app, hand over, render.
 * `appArrives` stands for the time the app's own code takes to arrive.
 */
async function openDeepLink(path: string, appArrives: () => Promise<void> = () => Promise.resolve()) {
  window.history.pushState({}, '', path);
  const early = startEarly(window.location.pathname);
  await appArrives();
  const state = createAppState(false);
  early?.handOver(state.queryClient);
  const user = userEvent.setup();
  render(<App state={state} />);
  return { early, user };
}

const requested = (path: string) => requests.filter((u) => u.pathname === path).length;

describe('a deep link started before the app', () => {
  it('shows the history from the early requests without sending any of them twice', async () => {
    const project = projectWithHistory();
    sessionStorage.setItem(SESSION_KEY_STORAGE, sim.apiKey);
    await openDeepLink(`/projects/${project.id}`);

    const table = await screen.findByRole('table', { name: /operations/i });
    await waitFor(() => expect(within(table).getAllByRole('link')).toHaveLength(3));
    await screen.findByRole('heading', { level: 1, name: 'Early start' });
    const base = `/api/v2/projects/${project.id}`;
    for (const path of [`${base}/operations`, base, `${base}/branches`, `${base}/endpoints`]) {
      expect(requested(path), path).toBe(1);
    }
  });

  it('starts nothing without a stored key: the key screen shows and no request is made', async () => {
    const project = projectWithHistory();
    expect((await openDeepLink(`/projects/${project.id}`)).early).toBeNull();

    expect(await screen.findByLabelText(/api key/i)).toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });

  const failOnce = (path: string) =>
    sim.server.use(
      http.get(`*${path}`, () => HttpResponse.json({ code: '', message: 'upstream hiccup' }, { status: 503 }), { once: true }),
    );

  it('leaves a request that failed before the app arrived to the screen, which asks again and shows the rows', async () => {
    const project = projectWithHistory();
    sessionStorage.setItem(SESSION_KEY_STORAGE, sim.apiKey);
    const path = `/api/v2/projects/${project.id}/operations`;
    failOnce(path);
    const answered: string[] = [];
    sim.server.events.on('response:mocked', ({ request }) => answered.push(new URL(request.url).pathname));
    await openDeepLink(`/projects/${project.id}`, () => waitFor(() => expect(answered).toContain(path)));

    const table = await screen.findByRole('table', { name: /operations/i });
    await waitFor(() => expect(within(table).getAllByRole('link')).toHaveLength(3));
    expect(requested(path)).toBe(2);
  });

  it('hands a request still in flight to the app, whose error policy shows its failure with a Retry that works', async () => {
    const project = projectWithHistory();
    sessionStorage.setItem(SESSION_KEY_STORAGE, sim.apiKey);
    const path = `/api/v2/projects/${project.id}/operations`;
    failOnce(path);
    const { user } = await openDeepLink(`/projects/${project.id}`);

    await screen.findByText('Could not load the operations.');
    expect(screen.getByText(/upstream hiccup/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    const table = await screen.findByRole('table', { name: /operations/i });
    await waitFor(() => expect(within(table).getAllByRole('link')).toHaveLength(3));
    expect(requested(path)).toBe(2);
  });
});
