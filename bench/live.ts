// The live stream's part of the bench (`npm run bench -- --only=live`, docs/live.md): two console instances
// (dist/) on one Postgres of the bench's own, reading the simulator served here as their API (API_URL), so every
// request they send it is counted. One operation is held running (the simulator's `unknown-values` fault: a
// status the console does not know is in flight); 1 viewer, then 20 (browser contexts, half on each instance)
// watch its page; counted: the API requests a minute while they watch (every instance's, the follower's and
// the pages' through /api/v2), then how long after the platform's change (the fault cleared) each page shows the
// operation's end.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from '@playwright/test';
import playwrightConfig, { CHROMIUM } from '../playwright.config';
import { nodeHandler } from '../server/http/node-bridge';
import { createApiBackend } from '../server/proxy/api-backend';
import { ownPostgres } from '../test/support/postgres-server';
import { signInContext, startConsole, type ConsoleServer } from './server';

const KEY = 'bench-live-key-00000000000000000000';
const FAULTS_PATH = '/__sim/faults';
/** How long each viewer count is watched (the requests a minute are counted over it). */
const WINDOW_MS = Number(process.env.BENCH_LIVE_WINDOW_MS ?? 30_000);
/** Watches the page made expire this long after it closed (server/live/live-routes.ts WATCH_TTL_MS), plus a margin. */
const WATCHES_EXPIRE_MS = 50_000;
const VIEWERS = [1, 20] as const;

export interface LiveScenario {
  viewers: number;
  apiRequestsPerMinute: number;
  /** Milliseconds from the platform's change to each page showing it. */
  shownAfterMs: { p50: number; p95: number; max: number };
}

export interface LiveResult {
  windowMs: number;
  scenarios: LiveScenario[];
}

async function countedSimulator(): Promise<{ origin: string; sent: () => number; close: () => Promise<void> }> {
  const backend = createApiBackend({ simApiKey: KEY });
  const answer = nodeHandler(backend.fetch);
  const control = backend.faultControl;
  let sent = 0;
  const server = http.createServer((req, res) => {
    if ((req.url ?? '').startsWith(FAULTS_PATH) && control) {
      void control(req, res);
      return;
    }
    sent += 1;
    void answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function scenario(
  browser: Browser,
  instances: readonly ConsoleServer[],
  sim: Awaited<ReturnType<typeof countedSimulator>>,
  viewers: number,
): Promise<LiveScenario> {
  const api = (target: string, init: RequestInit = {}) =>
    fetch(`${sim.origin}/api/v2${target}`, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } });
  const { projects } = (await (await api('/projects?limit=10')).json()) as { projects: { id: string }[] };
  let held: { projectId: string; operationId: string } | undefined;
  for (const project of projects) {
    const created = await api(`/projects/${project.id}/branches`, { method: 'POST', body: '{}' });
    if (created.status !== 201) continue;
    const { operations } = (await created.json()) as { operations: { id: string }[] };
    held = { projectId: project.id, operationId: operations[0]?.id ?? '' };
    break;
  }
  if (!held) throw new Error('no project took a new branch');
  const rules = [{ fault: { type: 'unknown-values', status: 'quarantined', ids: [held.operationId] } }];
  await fetch(`${sim.origin}${FAULTS_PATH}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rules }) });

  const pages: Page[] = [];
  for (let i = 0; i < viewers; i++) {
    const origin = instances[i % instances.length]?.origin ?? '';
    const context = await browser.newContext({ baseURL: origin });
    await signInContext(context, origin, KEY);
    const page = await context.newPage();
    await page.goto(`/projects/${held.projectId}/operations/${held.operationId}`);
    pages.push(page);
  }
  await Promise.all(pages.map((page) => page.getByRole('group', { name: 'Live updates' }).getByText('Live', { exact: true }).waitFor({ timeout: 60_000 })));
  const before = sim.sent();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const apiRequestsPerMinute = ((sim.sent() - before) * 60_000) / (performance.now() - started);

  // The platform's change: the operation's real end shows through.
  const changedAt = Date.now();
  await fetch(`${sim.origin}${FAULTS_PATH}`, { method: 'DELETE' });
  const shown = await Promise.all(
    pages.map(async (page) => {
      await page.getByRole('main').getByTestId('operation-status').getByText('OK', { exact: true }).waitFor({ timeout: 60_000 });
      return Date.now() - changedAt;
    }),
  );
  await Promise.all(pages.map((page) => page.context().close()));
  return {
    viewers,
    apiRequestsPerMinute: Math.round(apiRequestsPerMinute * 10) / 10,
    shownAfterMs: { p50: percentile(shown, 50), p95: percentile(shown, 95), max: Math.max(...shown) },
  };
}

export async function measureLive(): Promise<LiveResult> {
  console.log('Live: a Postgres of its own, the simulator as the API, two console instances…');
  const postgres = await ownPostgres('console');
  const sim = await countedSimulator();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    API_URL: `${sim.origin}/api/v2`,
    DATABASE_URL: postgres.url,
    SESSION_SECRET: 'bench-live-session-secret-00000000000000000',
    LOG_LEVEL: 'warn',
  };
  delete env.SIM_API_KEY;
  delete env.LIVE_EVENTS;
  const instances: ConsoleServer[] = [];
  let browser: Browser | undefined;
  try {
    instances.push(await startConsole(env), await startConsole(env));
    browser = await chromium.launch({ ...(playwrightConfig.use?.launchOptions ?? {}), executablePath: CHROMIUM, headless: true });
    const scenarios: LiveScenario[] = [];
    for (const viewers of VIEWERS) {
      if (scenarios.length > 0) await new Promise((resolve) => setTimeout(resolve, WATCHES_EXPIRE_MS));
      console.log(`Live: ${viewers} viewer(s) of one running operation, ${WINDOW_MS / 1_000} s…`);
      scenarios.push(await scenario(browser, instances, sim, viewers));
    }
    return { windowMs: WINDOW_MS, scenarios };
  } finally {
    await browser?.close();
    await Promise.all(instances.map((instance) => instance.stop()));
    await sim.close();
    await postgres.remove();
  }
}

export function reportLive(result: LiveResult): void {
  console.log(`\nLive (docs/live.md): one running operation watched, API requests a minute over ${result.windowMs / 1_000} s, two instances on one Postgres`);
  for (const s of result.scenarios)
    console.log(
      `  ${String(s.viewers).padStart(2)} viewer(s): ${s.apiRequestsPerMinute} requests/min; the end shown after ${s.shownAfterMs.p50} ms (p50), ${s.shownAfterMs.p95} ms (p95), ${s.shownAfterMs.max} ms (max)`,
    );
  const [one, many] = result.scenarios;
  if (one && many && one.apiRequestsPerMinute > 0)
    console.log(`  ${many.viewers} viewers cost ${((many.apiRequestsPerMinute / one.apiRequestsPerMinute) * 100).toFixed(0)} % of 1 viewer's requests`);
}
