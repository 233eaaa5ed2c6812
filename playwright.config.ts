import { defineConfig, devices } from '@playwright/test';

const port = Number(process.env.E2E_PORT ?? 5199);
export const E2E_API_KEY = 'e2e-demo-key-0000000000000000';
/** UTC+05:30 all year (no daylight saving): never the server's zone. */
export const BROWSER_TIME_ZONE = 'Asia/Kolkata';

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  // .ci/run totals the run from this report; the Node 22 run (npm run test:node22) writes its own.
  reporter: process.env.CI ? [['list'], ['json', { outputFile: process.env.E2E_REPORT ?? 'reports/e2e.json' }]] : 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'off',
    ...devices['Desktop Chrome'],
    // The browser is never in the server's time zone (the server runs in UTC below): a page that renders
    // the server's clock or offset into its HTML fails hydration here, as it would for most people.
    timezoneId: BROWSER_TIME_ZONE,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'npm start',
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 180_000,
    env: { TZ: 'UTC', PORT: String(port), HOST: '127.0.0.1', SIM_API_KEY: E2E_API_KEY, SIM_FAULTS: '1', SIM_HUGE_PROJECT: '1' },
    stdout: 'pipe',
  },
});
