import { configure, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fingerprintOf } from '../../support/console-server';
import { elapse, withFakeConsoleClock } from '../../support/fake-clock';
import { renderApp } from '../../support/render-app';
import { setupSimServer } from '../../support/sim-server';

const sim = setupSimServer({ start: Date.now(), store: true });
withFakeConsoleClock();
const MINUTE = 60_000;
const INTERVAL_MS = 100;

// Role queries over a polled page are slow in jsdom on a busy machine: give finds more time.
beforeAll(() => configure({ asyncUtilTimeout: 5_000 }));

let requests: URL[] = [];
beforeEach(() => {
  // Live polling every 100 ms keeps these tests quick; the interval is the person's preference.
  localStorage.setItem('ops-console.poll-interval-ms', String(INTERVAL_MS));
  requests = [];
  // The page's icon, as index.html has it: the watch list draws its badge over it.
  document.head.querySelector('link[rel="icon"]')?.remove();
  document.head.insertAdjacentHTML('beforeend', '<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  sim.onPageRequest((request) => {
    requests.push(new URL(request.url));
  });
});
afterEach(() => {
  sim.server.events.removeAllListeners();
  vi.unstubAllGlobals();
  document.title = 'Ops Console';
});

/** A stand-in for the browser's Notification API: what was asked and what was shown. */
function stubNotifications(permission: NotificationPermission = 'default') {
  const shown: { title: string; body: string | undefined }[] = [];
  const requestPermission = vi.fn(() => Promise.resolve<NotificationPermission>('granted'));
  class FakeNotification {
    static permission = permission;
    static requestPermission = requestPermission;
    readonly title: string;
    constructor(title: string, options?: NotificationOptions) {
      this.title = title;
      shown.push({ title, body: options?.body });
    }
  }
  vi.stubGlobal('Notification', FakeNotification);
  return { shown, requestPermission };
}

function quietProject(name = 'Watch test') {
  // No compute, so the control plane adds no background operations of its own.
  return sim.cp.addProject({ name, ownerId: sim.seed.userId, compute: false });
}

function liveOperation(projectId: string, action = 'apply_config', durationMs = 10 * MINUTE, extra: { createdAt?: number; fail?: boolean } = {}) {
  return sim.cp.addOperation({ projectId, action, durationMs, fail: extra.fail ?? false, startAs: 'running', ...extra });
}

function panel() {
  return screen.getByRole('complementary', { name: 'Watched operations' });
}

/** A watched operation's entry in the panel (the list itself loads on demand, so wait for it). */
async function watchedItem(name: string) {
  const link = await within(panel()).findByRole('link', { name });
  const item = link.closest('li');
  if (!item) throw new Error(`${name} is not in a list item`);
  return item;
}

function goToProjects(user: { click: (element: Element) => Promise<void> }) {
  return user.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Projects' }));
}

const listRequests = (projectId: string) => requests.filter((u) => u.pathname === `/api/v2/projects/${projectId}/operations`);
const singleGets = (projectId: string) => requests.filter((u) => u.pathname.startsWith(`/api/v2/projects/${projectId}/operations/`));

/** Counts the polls of `poll` over ten intervals of the console's clock: one an interval, never two. */
async function tenIntervals(poll: () => URL[]) {
  const before = poll().length;
  const from = Date.now();
  await elapse(10 * INTERVAL_MS);
  const polls = poll().slice(before);
  // The clock also moves while an answer is on its way, so a poll may come a little late, never early.
  const intervals = (Date.now() - from) / INTERVAL_MS;
  expect(polls.length).toBeGreaterThanOrEqual(Math.floor(intervals / 1.5));
  expect(polls.length).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
  return polls;
}

function storedWatchEntries(): [string, string][] {
  const entries: [string, string][] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith('ops-console.watch.')) entries.push([key, localStorage.getItem(key) ?? '']);
  }
  return entries;
}

describe('watch list', () => {
  it('is on every signed-in page, empty at first, and never asks for notifications on load', async () => {
    const { requestPermission } = stubNotifications();
    renderApp('/', { apiKey: sim.apiKey });
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    expect(panel()).toHaveTextContent('Nothing watched yet.');
    expect(requestPermission).not.toHaveBeenCalled();
  });

  it('watches an operation in flight from its history row, asking for notifications on the first Watch only', async () => {
    const { requestPermission } = stubNotifications();
    const project = quietProject();
    const applying = liveOperation(project.id, 'apply_config');
    const creating = liveOperation(project.id, 'create_branch', 30_000, { createdAt: sim.clock.now() - 1_000 });
    const ended = sim.cp.addOperation({ projectId: project.id, action: 'start_compute', status: 'finished', createdAt: sim.clock.now() - 5 * MINUTE });

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    // Named after the action and the id's start, so the buttons of a long list tell rows apart.
    const watchApply = await screen.findByRole('button', { name: `Watch Apply config ${applying.id.slice(0, 8)}…` });
    expect(watchApply).toHaveAttribute('aria-pressed', 'false');
    // An operation that has ended has nothing left to watch.
    expect(screen.getByRole('link', { name: 'Start compute' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Watch Start compute/ })).not.toBeInTheDocument();
    expect(ended.id).toBeTruthy();
    await user.click(watchApply);
    expect(watchApply).toHaveAttribute('aria-pressed', 'true');
    expect(requestPermission).toHaveBeenCalledTimes(1);

    await user.click(screen.getByRole('button', { name: `Watch Create branch ${creating.id.slice(0, 8)}…` }));
    expect(requestPermission).toHaveBeenCalledTimes(1);
    sim.clock.advance(MINUTE);

    const apply = await watchedItem('Apply config');
    expect(apply).toHaveTextContent('In progress');
    expect(apply).toHaveTextContent('Watch test');
    expect(within(apply).getByRole('link', { name: 'Apply config' })).toHaveAttribute(
      'href',
      expect.stringMatching(new RegExp(`^/projects/${project.id}/operations/`)),
    );
    const create = await watchedItem('Create branch');
    await waitFor(() => expect(create).toHaveTextContent(/OK.*took/));
    expect(document.title).toMatch(/^\(1 running, 1 finished\) /);

    // Pressing Watch again takes it off the list.
    await user.click(watchApply);
    expect(within(panel()).queryByRole('link', { name: 'Apply config' })).not.toBeInTheDocument();
  });

  it('watches from the detail page and follows the operation to its end: label, duration, title, favicon, notification, announcement', async () => {
    const { shown } = stubNotifications('granted');
    const project = quietProject('Ending');
    const op = liveOperation(project.id, 'apply_config', 3_000);
    const { user } = renderApp(`/projects/${project.id}/operations/${op.id}`, { apiKey: sim.apiKey });
    await user.click(await screen.findByRole('button', { name: /^Watch Apply config / }));

    expect(await watchedItem('Apply config')).toHaveTextContent(/In progress.*so far/);
    expect(document.title).toMatch(/^\(1 running\) /);
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    expect(icon?.getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);

    // Leave the detail page: the watch list keeps following it on its own.
    await goToProjects(user);
    sim.clock.advance(MINUTE);
    await waitFor(async () => expect(await watchedItem('Apply config')).toHaveTextContent('OK'));
    expect(await watchedItem('Apply config')).toHaveTextContent(/took \d/);
    expect(document.title).toBe('(1 finished) Projects · Ops Console');
    expect(shown.map((n) => n.title)).toEqual(['Apply config: OK']);
    expect(shown[0]?.body).toMatch(/^Ending .*took/);
    expect(within(panel()).getByText(/^Apply config: OK, Ending/)).toBeInTheDocument();

    await user.click(within(panel()).getByRole('button', { name: 'Clear finished' }));
    expect(panel()).toHaveTextContent('Nothing watched yet.');
    expect(document.title).toBe('Projects · Ops Console');
    expect(icon?.getAttribute('href')).toBe('/favicon.svg');
  });

  it('makes failures stand out and keeps them until dismissed, while Clear finished takes the rest', async () => {
    stubNotifications('denied');
    const project = quietProject('Failing');
    const failing = liveOperation(project.id, 'suspend_compute', 2_000, { fail: true });
    liveOperation(project.id, 'start_compute', 2_000, { createdAt: sim.clock.now() - 1_000 });
    liveOperation(project.id, 'delete_timeline', 2_000, { fail: true, createdAt: sim.clock.now() - 2_000 });

    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    for (const name of [/^Watch Suspend compute /, /^Watch Start compute /, /^Watch Delete timeline /]) {
      await user.click(await screen.findByRole('button', { name }));
    }
    sim.clock.advance(5_000);
    await waitFor(async () => expect(await watchedItem('Suspend compute')).toHaveTextContent('Error'));
    expect(await watchedItem('Suspend compute')).toHaveClass('watch-op--failed');
    expect(await watchedItem('Suspend compute')).toHaveTextContent('the platform may retry it');
    expect(within(panel()).getByText(/Suspend compute: Error/)).toBeInTheDocument();
    expect(await watchedItem('Delete timeline')).toHaveClass('watch-op--failed');

    await user.click(within(panel()).getByRole('button', { name: 'Clear finished' }));
    expect(within(panel()).queryByRole('link', { name: 'Start compute' })).not.toBeInTheDocument();
    expect(await watchedItem('Delete timeline')).toBeInTheDocument();

    await user.click(within(panel()).getByRole('button', { name: 'Dismiss Delete timeline' }));
    expect(within(panel()).queryByRole('link', { name: 'Delete timeline' })).not.toBeInTheDocument();
    expect(failing.id).toBeTruthy();
  });

  it('survives a reload, stored under the session fingerprint the server gave and never the key itself', async () => {
    const project = quietProject('Persisted');
    liveOperation(project.id, 'apply_config');
    const first = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await first.user.click(await screen.findByRole('button', { name: /^Watch Apply config / }));
    await waitFor(() => expect(storedWatchEntries()).toHaveLength(1));
    first.unmount();

    renderApp('/', { apiKey: sim.apiKey });
    expect(await within(panel()).findByRole('link', { name: 'Apply config' })).toBeInTheDocument();
    const [[key, value]] = storedWatchEntries() as [[string, string]];
    expect(key).toBe(`ops-console.watch.${fingerprintOf(sim.apiKey)}`);
    expect(value).toContain('Persisted');
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i) ?? '';
      expect(name).not.toContain(sim.apiKey);
      expect(localStorage.getItem(name)).not.toContain(sim.apiKey);
    }
  });

  it("keeps each key's list apart and clears it on sign-out", async () => {
    const project = quietProject('Signed out');
    liveOperation(project.id, 'apply_config');
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    await user.click(await screen.findByRole('button', { name: /^Watch Apply config / }));
    await waitFor(() => expect(storedWatchEntries()).toHaveLength(1));

    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText(/You signed out/)).toBeInTheDocument();
    expect(storedWatchEntries()).toEqual([]);

    await user.type(screen.getByLabelText(/API key/), `${sim.apiKey}{Enter}`);
    await screen.findByRole('heading', { level: 1, name: 'Signed out' });
    expect(panel()).toHaveTextContent('Nothing watched yet.');
  });

  it('refreshes ten watched operations of one project with one request per interval, shared with the history', async () => {
    const project = quietProject('Budget');
    for (let i = 0; i < 10; i++) liveOperation(project.id, `action_${i}`, 10 * MINUTE, { createdAt: sim.clock.now() - (10 - i) * 1_000 });
    const { user } = renderApp(`/projects/${project.id}`, { apiKey: sim.apiKey });
    for (let i = 0; i < 10; i++) await user.click(await screen.findByRole('button', { name: new RegExp(`^Watch Action ${i} `) }));
    expect(within(panel()).getAllByRole('link', { name: /^Action \d/ })).toHaveLength(10);

    // On the project page the history polls the same newest page: still one request per interval.
    await tenIntervals(() => listRequests(project.id));

    // Elsewhere, the watch list polls alone: one newest page per interval, no single gets.
    await goToProjects(user);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });
    const polls = await tenIntervals(() => listRequests(project.id));
    expect(polls.every((u) => u.searchParams.get('cursor') === null)).toBe(true);
    expect(singleGets(project.id)).toEqual([]);

    // Once every watched operation has ended, the project is not polled any more.
    sim.clock.advance(11 * MINUTE);
    await waitFor(() => expect(within(panel()).getAllByText('OK')).toHaveLength(10));
    const settled = listRequests(project.id).length;
    await elapse(30 * INTERVAL_MS);
    expect(listRequests(project.id).length).toBe(settled);
  });

  it('falls back to a single get only for a watched operation that is not on the newest page', async () => {
    const project = quietProject('Deep history');
    const start = sim.clock.now() - 300 * MINUTE;
    const old = liveOperation(project.id, 'apply_config', 10 * 60 * MINUTE, { createdAt: start });
    for (let i = 0; i < 120; i++) {
      sim.cp.addOperation({ projectId: project.id, action: 'create_branch', status: 'finished', createdAt: start + (i + 1) * MINUTE });
    }
    const recent = liveOperation(project.id, 'start_compute', 10 * MINUTE);

    const { user } = renderApp(`/projects/${project.id}/operations/${old.id}`, { apiKey: sim.apiKey });
    await user.click(await screen.findByRole('button', { name: /^Watch Apply config / }));
    await user.click(screen.getAllByRole('link', { name: 'Deep history' })[0]!);
    await user.click(await screen.findByRole('button', { name: /^Watch Start compute / }));
    await goToProjects(user);
    await screen.findByRole('heading', { level: 1, name: 'Projects' });

    const singles = await tenIntervals(() => singleGets(project.id));
    // Only the operation the newest page does not hold is fetched on its own, once per interval.
    expect(singles.every((u) => u.pathname.endsWith(`/operations/${old.id}`))).toBe(true);
    const pages = await tenIntervals(() => listRequests(project.id));
    expect(pages.every((u) => u.searchParams.get('cursor') === null)).toBe(true);
    expect(recent.id).toBeTruthy();
  });
});
