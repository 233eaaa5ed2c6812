import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, devices, type PlaywrightTestConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 5199);
export const E2E_API_KEY = 'e2e-demo-key-0000000000000000';
/**
 * The scale project's operations in the lanes' world (acme-event-archive, 40 pages of the console's 100 rows): the
 * windowed table, its order and its end, and the archive's backfill and filters, at a size every lane can afford.
 * The bench measures the same screens at 20,000 (SIM_HUGE_PROJECT=1; docs/benchmarks.md).
 */
export const E2E_HUGE_PROJECT_OPERATIONS = 4_000;
/** UTC+05:30 all year (no daylight saving): never the server's zone. */
export const BROWSER_TIME_ZONE = 'Asia/Kolkata';

// The specs run in two lanes at once, each against a server of its own (its own simulated world), one spec
// at a time within a lane: a spec may change its world (faults, locks, revoked keys), never the other lane's.
// Lanes are balanced by how long their specs take (under 4 minutes each on a quiet 2-core machine; by fc49's
// seconds of tests: a 182 + the watch spec's 13, b 182 + the restart's 13, the Node 22 lane 212 − 13); lane b
// takes every spec no other lane names (a new spec too).
// The specs that start servers of their own (live: two instances and a Postgres; team: a console in team sign-in
// beside an OpenID Provider; demo-restart: `npm start`'s demo stopped and started again on its DATA_DIR) are in lanes
// a and b.
const LANE_A = ['faults', 'history', 'a11y', 'api-keys', 'activity', 'tabs', 'edges', 'host-check', 'live', 'timeline', 'watch'];
// The server must also run on Node 22 (Node 20 is past its end of life): with E2E_NODE22=1 a third lane runs
// the specs about the server (sessions, security, server rendering, the platform's CLI as an API client, the
// archive, the API client, the insights the server draws) against it on Node 22. Every other spec signs in and
// loads server-rendered pages on Node 20. (Edges, host-check, the timeline and the watch spec run in lane a, so that
// the three lanes end together.)
const NODE22_LANE = ['session', 'security', 'ssr', 'neonctl', 'archive', 'api-client', 'insights'];
const node22 = process.env.E2E_NODE22 === '1';

const specs = (names: string[]) => names.map((name) => `**/${name}.spec.ts`);
const origin = (lanePort: number) => `http://127.0.0.1:${lanePort}`;
// The servers run the build in dist/ (`npm start` without its build step): `npm run test:e2e` builds first,
// `npm test` builds once for the production install check and the browser tests.
const serve = 'node dist/server/main.js';

const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
];

/** Debian's Chromium, the browser people run: the bench measures first rows and paints with it (docs/benchmarks.md). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * The browser tests' Chromium: Debian's `chromium-headless-shell` when installed (README's test command installs it),
 * the same build without the desktop browser's windows and tabs, which took a third of the lanes' CPU for pages no one
 * sees (docs/testing.md); Debian's `chromium` otherwise.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
export const TEST_CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM);

type WebServer = Exclude<NonNullable<PlaywrightTestConfig['webServer']>, unknown[]>;

// Lanes a and b serve from one process each (three lanes of clusters would be nine servers on two cores);
// the cluster (server/process/run.ts) is tested in test/server and by test:prod: its simulator hop put ssr past its render deadline beside two lanes.
/** A lane's DATA_DIR, emptied when its server starts: each run begins with no kept key and no store. */
const dataDir = (lanePort: number) => join(tmpdir(), `ops-console-e2e-${lanePort}`);

function server(lanePort: number, command = serve, workers = '1'): WebServer {
  return {
    command: `rm -rf '${dataDir(lanePort)}' && ${command}`,
    url: `${origin(lanePort)}/`,
    reuseExistingServer: false,
    timeout: 180_000,
    env: {
      TZ: 'UTC',
      PORT: String(lanePort),
      HOST: '127.0.0.1',
      SIM_API_KEY: E2E_API_KEY,
      SIM_FAULTS: '1',
      SIM_HUGE_PROJECT: String(E2E_HUGE_PROJECT_OPERATIONS),
      WEB_CONCURRENCY: workers,
      // Each lane's server keeps its store and secret apart (one process may open a PGlite directory), fresh each run.
      DATA_DIR: dataDir(lanePort),
      // The archive's collector at a test's pace: busy projects every second (idle ones every 6 s), and the whole
      // re-read that finds operations the API stopped listing every 30 s instead of every hour (each re-reads every
      // project a kept key reaches, the scale project's 4,000 operations too: every 10 s, it kept a core a fifth busy).
      ARCHIVE_INTERVAL_MS: '1000',
      ARCHIVE_FULL_READ_MS: '30000',
      // The most the platform allows a minute (default 300): a kept key's backfill of the scale project takes a
      // third less time at 700 than at 300.
      ARCHIVE_BUDGET: '700',
      // Webhooks to a receiver the test starts on loopback.
      WEBHOOK_ALLOW_PRIVATE: '1',
      // The lanes' pages poll as they did before the live stream: tabs.spec.ts counts the polls of three tabs, which
      // the stream replaces while work is in flight (docs/live.md). A page at rest holds no stream, so the specs that
      // wait for an idle network pass with it on; live.spec.ts starts servers of its own with the stream on.
      LIVE_EVENTS: 'off',
      // Its output is piped into the run's: the events that went wrong, not a line per request.
      LOG_LEVEL: 'warn',
    },
    stdout: 'pipe',
  };
}

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: false,
  workers: node22 ? 3 : 2,
  retries: 0,
  timeout: 60_000,
  // Three lanes on two cores make every step 2–3× slower than alone (a 4.5 s test took 16.6 s in CI): an
  // assertion waits up to 10 s for what the page shows, not the default 5 s.
  expect: { timeout: 10_000 },
  // .ci/run totals the run from this report.
  reporter: process.env.CI ? [['list'], ['json', { outputFile: process.env.E2E_REPORT ?? 'reports/e2e.json' }]] : 'list',
  use: {
    trace: 'off',
    ...devices['Desktop Chrome'],
    // The browser is never in the server's time zone (the server runs in UTC below): a page that renders
    // the server's clock or offset into its HTML fails hydration here, as it would for most people.
    timezoneId: BROWSER_TIME_ZONE,
    launchOptions: {
      executablePath: TEST_CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // One --disable-features counts (the last), so Playwright's own list (playwright-core's chromiumSwitches, 1.65)
        // is repeated here, with the omnibox's popups added: in every new context headless Chromium readies them in a
        // renderer of their own (chrome://omnibox-popup.top-chrome), which took about as much CPU as the pages under test.
        `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'].join(',')}`,
      ],
    },
  },
  projects: [
    { name: 'a', testMatch: specs(LANE_A), workers: 1, use: { baseURL: origin(port) } },
    { name: 'b', testIgnore: specs(node22 ? [...LANE_A, ...NODE22_LANE] : LANE_A), workers: 1, use: { baseURL: origin(port + 1) } },
    ...(node22 ? [{ name: 'node22', testMatch: specs(NODE22_LANE), workers: 1, use: { baseURL: origin(port + 2) } }] : []),
  ],
  webServer: [server(port), server(port + 1), ...(node22 ? [server(port + 2, `scripts/node22.sh ${serve}`)] : [])],
});
