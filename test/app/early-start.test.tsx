import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app';
import { createAppState } from '../../src/app/app-state';
import { startEarly } from '../../src/app/early-start';
import { holdSession } from '../support/console-server';
import { setupSimServer } from '../support/sim-server';

const sim = setupSimServer({ start: Date.now() });

let requests: URL[] = [];
beforeEach(() => {
  requests = [];
  sim.onPageRequest((request) => {
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
 * What main.tsx and mountApp do on a signed-in deep link: make the state, start early, render once
 * the app's code is in (`appArrives` stands for the time that takes).
 */
async function openDeepLink(path: string, { retries = false, appArrives = () => Promise.resolve() } = {}) {
  const session = holdSession(sim.apiKey);
  window.history.pushState({}, '', path);
  const state = createAppState({ retries, session });
  const screenCode = startEarly(window.location.pathname, state.queryClient);
  await appArrives();
  render(<App state={state} />);
  return screenCode;
}

const requested = (path: string) => requests.filter((u) => u.pathname === path).length;

async function expectRows(count: number) {
  const table = await screen.findByRole('table', { name: /operations/i });
  await waitFor(() => expect(within(table).getAllByRole('link', { name: 'Check availability' })).toHaveLength(count));
}

function failOnce(path: string) {
  sim.server.use(http.get(`*${path}`, () => HttpResponse.json({ code: '', message: 'upstream hiccup' }, { status: 503 }), { once: true }));
}

describe('a deep link started before the app', () => {
  it('shows the history from the early requests without sending any of them twice', async () => {
    const project = projectWithHistory();
    await openDeepLink(`/projects/${project.id}`);

    await expectRows(3);
    await screen.findByRole('heading', { level: 1, name: 'Early start' });
    const base = `/api/v2/projects/${project.id}`;
    for (const path of [`${base}/operations`, base, `${base}/branches`, `${base}/endpoints`]) {
      expect(requested(path), path).toBe(1);
    }
  });

  it('starts nothing for an address no screen owns', async () => {
    expect(await openDeepLink('/no/such/page')).toBeNull();
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(requests.filter((u) => u.pathname.startsWith('/api/v2/projects'))).toHaveLength(0);
  });

  it('leaves a request that failed before the app arrived to the screen, which asks again and shows the rows', async () => {
    const project = projectWithHistory();
    const path = `/api/v2/projects/${project.id}/operations`;
    failOnce(path);
    const answered: string[] = [];
    // The page's early request has had its answer (the console server's, passed on from the API).
    sim.onPageResponse((request) => answered.push(new URL(request.url).pathname));
    await openDeepLink(`/projects/${project.id}`, { appArrives: () => waitFor(() => expect(answered).toContain(path)) });

    await expectRows(3);
    expect(requested(path)).toBe(2);
  });

  it('retries an early request that fails like any other read, by itself, and shows the rows', async () => {
    const project = projectWithHistory();
    const path = `/api/v2/projects/${project.id}/operations`;
    failOnce(path);
    await openDeepLink(`/projects/${project.id}`, { retries: true });

    await expectRows(3);
    expect(requested(path)).toBe(2);
  });
});
