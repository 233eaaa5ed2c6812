import { notifyManager } from '@tanstack/react-query';
import { act, cleanup, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { screenModules } from '../../../src/app/screen-modules';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

// "Next check in N s" on the detail page, and the banner's "retrying in N s", against when the
// request is really sent, on the production retry policy. The console's timers and Date are faked
// (React's own scheduling is not), so every wait is exact; the simulator keeps its own clock.

const sim = setupSimServer({ start: Date.parse('2026-11-22T12:00:00Z') });
const DETAIL = /\/api\/v2\/projects\/[^/]+\/operations\/[^/]+$/;

let sent: number[] = [];
// The screen's code loads on demand, in real time: loaded up front, it renders at once under fake timers.
beforeAll(async () => {
  await screenModules.operation.load();
});
beforeEach(() => {
  // React Query hands results to components on a zero-delay timer, which a frozen clock never runs.
  notifyManager.setScheduler(queueMicrotask);
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: Date.parse('2026-11-22T12:00:00Z') });
  sent = [];
  sim.onPageRequest((request) => {
    if (DETAIL.test(new URL(request.url).pathname)) sent.push(Date.now());
  });
});
afterEach(() => {
  cleanup();
  sim.server.events.removeAllListeners();
  vi.useRealTimers();
  notifyManager.setScheduler((callback) => setTimeout(callback, 0));
});

/** Lets answers arrive and React render without moving the console's clock. */
async function settle() {
  for (let i = 0; i < 10; i++) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
      await new Promise((resolve) => setImmediate(resolve));
    });
  }
}

/** Moves the console's clock on by `ms`, a second at most at a time, letting everything due happen. */
async function advance(ms: number) {
  for (let left = ms; left > 0; left -= 1_000) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(Math.min(1_000, left));
    });
    await settle();
  }
}

/** The page's "next check in N s", as a number. */
function pageCountdown(): number {
  const match = /next check in (\d+) s/.exec(screen.getByRole('group', { name: 'Live updates' }).textContent);
  if (!match) throw new Error('no "next check in" on the page');
  return Number(match[1]);
}

/** The reconnecting note's "Retrying in N s", as a number. */
function noteCountdown(): number {
  const match = /Retrying in (\d+) s/.exec(screen.getByText(/Reconnecting…/).textContent);
  if (!match) throw new Error('no "Retrying in" in the note');
  return Number(match[1]);
}

/** One message per fault: the page says it, the page-wide notices do not repeat it. */
function bannerIsQuiet() {
  expect(document.querySelector('.notices')).toBeEmptyDOMElement();
}

/** Runs the clock until the next request goes out; returns how long that took. */
async function untilNextRequest(): Promise<number> {
  const before = sent.length;
  const from = Date.now();
  for (let waited = 0; sent.length === before; waited += 100) {
    if (waited > 120_000) throw new Error('no request within two minutes');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(100);
    });
  }
  const at = sent[before] ?? NaN;
  await settle();
  return at - from;
}

describe('the detail page during an outage', () => {
  it('counts down to the very moment each retry is sent, says the fault once (not again in the banner), and waits out Retry-After', async () => {
    const project = sim.cp.addProject({ name: 'Outage', ownerId: sim.seed.userId, compute: false });
    const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 60 * 60_000, fail: false, startAs: 'running' });
    renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
    await settle();
    expect(screen.getByTestId('operation-status')).toHaveTextContent('In progress');

    // Healthy: the next poll goes out when the page says (the default interval, 5 s).
    expect(pageCountdown()).toBe(5);
    expect(await untilNextRequest()).toBe(5_000);

    let answer: 'busy' | 'rate limited' = 'busy';
    sim.server.use(
      http.get('*/api/v2/projects/:projectId/operations/:operationId', () =>
        answer === 'busy'
          ? HttpResponse.json({ code: '', message: 'service unavailable' }, { status: 503, headers: { 'x-neon-ret-request-id': 'req-503' } })
          : HttpResponse.json({ code: '', message: 'rate limit exceeded' }, { status: 429, headers: { 'Retry-After': '20' } }),
      ),
    );
    await advance(5_000);
    expect(sent).toHaveLength(3);

    // Each failure: the countdown on the page and in the banner is the wait before the next request.
    const waits: number[] = [];
    for (let failure = 1; failure <= 3; failure++) {
      expect(screen.getByText(/Reconnecting… the last check failed/)).toBeInTheDocument();
      const shown = pageCountdown();
      expect(noteCountdown()).toBe(shown);
      bannerIsQuiet();
      if (failure === 3) answer = 'rate limited';
      const took = await untilNextRequest();
      expect(took).toBe(shown * 1_000);
      waits.push(took);
    }
    // Backoff from one second, doubling.
    expect(waits).toEqual([1_000, 2_000, 4_000]);

    // Rate limited with Retry-After: 20 s, longer than the 8 s backoff: the countdown says 20 and counts down.
    expect(pageCountdown()).toBe(20);
    expect(noteCountdown()).toBe(20);
    await advance(5_000);
    expect(pageCountdown()).toBe(15);
    expect(noteCountdown()).toBe(15);
    bannerIsQuiet();

    // The API is back in time for that try: the page says so no more.
    sim.server.resetHandlers();
    expect(await untilNextRequest()).toBe(15_000);
    expect(screen.queryByText(/Reconnecting/)).not.toBeInTheDocument();
    expect(document.querySelector('.notices')).toBeEmptyDOMElement();
  });
});
