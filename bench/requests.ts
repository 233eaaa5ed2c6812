// Request budget of live polling: the big project's history, a detail of an in-progress operation
// and 20 watched operations, in one tab and in three tabs on the same key; the most requests in any
// one second; and requests while every tab is hidden. Headless Chromium cannot hide a tab, so
// "hidden" is simulated in the page (visibilityState overridden, visibilitychange dispatched).
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import playwrightConfig, { CHROMIUM } from '../playwright.config';
import { OPERATIONS_PAGE_SIZE } from '../src/api/operations';
import type { Operation } from '../src/api/schemas';
import { apiClient } from './api';
import { signInContext, type ConsoleServer } from './server';

/** Shortened from the default 5 s so a steady state fits in the life of the simulator's operations. */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 1_000);
const WINDOW_INTERVALS = Number(process.env.BENCH_POLL_INTERVALS ?? 6);
const WATCHED = 20;
export const TARGET_PER_INTERVAL = 2;
export const TARGET_PER_SECOND = 40;
const POLL_ITEM = 'ops-console.poll-interval-ms';
const WATCH_PREFIX = 'ops-console.watch.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The watch list's storage name for a session: the fingerprint the server gave (src/features/session/key-namespace.ts). */
const watchItem = (fingerprint: string) => WATCH_PREFIX + fingerprint;

interface Scenario {
  tabs: number;
  /** Poll requests (operations pages and gets) during the steady-state window, per interval: mean and busiest. */
  perInterval: number;
  busiestInterval: number;
  /** Every request in that window per interval, including the branch and compute lists an ended operation refreshes. */
  allPerInterval: number;
  /** Most requests in any 1-second window from the first tab opening to the end. */
  maxPerSecond: number;
  /** Requests in a window of the same length once every tab is hidden. */
  hidden: number;
  paths: Record<string, number>;
}

export function maxInAnySecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[to] ?? 0) - (sorted[from] ?? 0) >= 1_000) from++;
    best = Math.max(best, to - from + 1);
  }
  return best;
}

async function post(origin: string, apiKey: string, path: string): Promise<Operation[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(new URL(`/api/v2${path}`, origin), {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
    });
    if (response.status === 423 && Date.now() < deadline) {
      await sleep(250);
      continue;
    }
    if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { operations: Operation[] }).operations;
  }
}

/** A string, not a function: tsx (esbuild keepNames) would wrap the getters in a `__name` helper the page lacks. */
const HIDE_TAB = `(() => {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
  document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
})()`;

async function hide(page: Page): Promise<void> {
  await page.evaluate(HIDE_TAB);
}

async function runScenario(browser: Browser, origin: string, apiKey: string, tabs: 1 | 3): Promise<Scenario> {
  const api = apiClient(origin, apiKey);
  const big = await api.bigProject();
  const [endpoint] = await api.endpoints(big.id);
  if (!endpoint) throw new Error('the big project has no compute');
  const restart = `/projects/${encodeURIComponent(big.id)}/endpoints/${encodeURIComponent(endpoint.id)}/restart`;
  const started = await post(origin, apiKey, restart);
  const live = started.at(-1);
  if (!live) throw new Error('a restart started no operation');
  // Keep the project busy for the whole scenario: a new restart whenever the last one ends.
  const busy = new AbortController();
  const keepBusy = (async () => {
    while (!busy.signal.aborted) await post(origin, apiKey, restart).catch(() => sleep(250));
  })();

  const newest = await api.firstOperations(big.id, OPERATIONS_PAGE_SIZE);
  const watched = [...started, ...newest.filter((op) => !started.some((s) => s.id === op.id))].slice(0, WATCHED);
  const now = Date.now();
  const stored = JSON.stringify({
    version: 1,
    groups: [{ id: `bench-${now}`, title: 'Bench', addedAt: now, entries: watched.map((operation) => ({ operation, projectName: big.name, watchedAt: now })) }],
  });

  const context: BrowserContext = await browser.newContext();
  const times: number[] = [];
  const polls: number[] = [];
  const paths: Record<string, number> = {};
  let counting = true;
  try {
    const fingerprint = await signInContext(context, origin, apiKey);
    await context.addInitScript(
      ([poll, ms, watch, list]) => {
        window.localStorage.setItem(poll, ms);
        if (window.localStorage.getItem(watch) === null) window.localStorage.setItem(watch, list);
      },
      [POLL_ITEM, String(POLL_MS), watchItem(fingerprint), stored] as const,
    );
    context.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (!counting || !pathname.startsWith('/api/v2/')) return;
      times.push(Date.now());
      if (/\/operations(\/[^/]+)?$/.test(pathname)) polls.push(Date.now());
      const kind = pathname.replace(/\/operations\/[^/]+$/, '/operations/{id}').replace(/^\/api\/v2\/projects\/[^/]+/, '/projects/{id}');
      paths[kind] = (paths[kind] ?? 0) + 1;
    });

    const pages: Page[] = [];
    const open = async (path: string, ready: (page: Page) => Promise<unknown>) => {
      const page = await context.newPage();
      await page.goto(`${origin}${path}`);
      await ready(page);
      pages.push(page);
    };
    const projectPath = `/projects/${encodeURIComponent(big.id)}`;
    await open(projectPath, (p) =>
      p
        .getByRole('table', { name: /^Operations/ })
        .locator('tbody tr')
        .first()
        .waitFor(),
    );
    if (tabs === 3) {
      await open(`${projectPath}/operations/${encodeURIComponent(live.id)}`, (p) => p.getByTestId('operation-status').waitFor());
      await open('/', (p) => p.getByRole('heading', { level: 1, name: 'Projects' }).waitFor());
    }

    await sleep(2 * POLL_MS);
    const from = times.length;
    const pollsFrom = polls.length;
    await sleep(WINDOW_INTERVALS * POLL_MS);
    const start = Date.now() - WINDOW_INTERVALS * POLL_MS;
    const all = times.length - from;
    const inWindow = polls.slice(pollsFrom);
    const buckets = Array.from(
      { length: WINDOW_INTERVALS },
      (_, i) => inWindow.filter((t) => t >= start + i * POLL_MS && t < start + (i + 1) * POLL_MS).length,
    );

    for (const page of pages) await hide(page);
    await sleep(POLL_MS);
    const hiddenFrom = times.length;
    await sleep(WINDOW_INTERVALS * POLL_MS);
    const hidden = times.length - hiddenFrom;
    counting = false;

    return {
      tabs,
      perInterval: inWindow.length / WINDOW_INTERVALS,
      busiestInterval: Math.max(...buckets),
      allPerInterval: all / WINDOW_INTERVALS,
      maxPerSecond: maxInAnySecond(times),
      hidden,
      paths,
    };
  } finally {
    await context.close();
    busy.abort();
    await keepBusy;
  }
}

export async function measureRequests(server: ConsoleServer, apiKey: string) {
  const launchOptions = playwrightConfig.use?.launchOptions ?? {};
  const browser = await chromium.launch({ ...launchOptions, executablePath: CHROMIUM, headless: true });
  try {
    const one = await runScenario(browser, server.origin, apiKey, 1);
    const three = await runScenario(browser, server.origin, apiKey, 3);
    return { pollMs: POLL_MS, windowIntervals: WINDOW_INTERVALS, watched: WATCHED, scenarios: [one, three] };
  } finally {
    await browser.close();
  }
}

export function reportRequests(result: Awaited<ReturnType<typeof measureRequests>>): void {
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  console.log(
    `\nRequest budget: big project's history, ${result.watched} watched operations (one tab), plus a detail of an in-progress operation and the projects list (three tabs); poll interval ${result.pollMs} ms, steady state over ${result.windowIntervals} intervals:\n`,
  );
  const rows: [string, string, string, string][] = [['metric', 'value', 'target', '']];
  for (const s of result.scenarios) {
    const tabs = s.tabs === 1 ? '1 tab' : `${s.tabs} tabs`;
    rows.push([
      `${tabs}: polls / interval`,
      `${s.perInterval.toFixed(2)} (max ${s.busiestInterval})`,
      `≤ ${TARGET_PER_INTERVAL}`,
      mark(s.busiestInterval <= TARGET_PER_INTERVAL),
    ]);
    rows.push([`${tabs}: all requests / interval`, s.allPerInterval.toFixed(2), '', '']);
    rows.push([`${tabs}: most in any 1 s`, String(s.maxPerSecond), `≤ ${TARGET_PER_SECOND}`, mark(s.maxPerSecond <= TARGET_PER_SECOND)]);
    rows.push([`${tabs}: while hidden`, String(s.hidden), '0', mark(s.hidden === 0)]);
  }
  for (const [a, b, c, d] of rows) console.log(`  ${a.padEnd(32)} ${b.padStart(14)}  ${c.padEnd(8)} ${d}`);
  console.log('  (all requests also count the branch and compute lists refetched when a watched operation ends)');
  for (const s of result.scenarios) {
    console.log(
      `  ${s.tabs} tab(s), every request by path: ${Object.entries(s.paths)
        .map(([p, n]) => `${p} ×${n}`)
        .join(', ')}`,
    );
  }
}
