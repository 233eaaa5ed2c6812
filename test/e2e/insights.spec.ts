import { expect, test, type Locator, type Page } from '@playwright/test';
import { formatDuration } from '../../src/lib/format';
import { ControlApi, type ApiOperation } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { E2E_API_KEY, holdKey } from './support/session';

// Insights end to end, against the lane's own server and its simulated world: a project-scoped key for one small
// project is kept from its insights page ("Keep history"), so the archive reads little; the figures of every action
// are computed here from the operations the simulator seeded (read through the API) and found on the page; a
// Failed link opens the history with exactly that many rows; and the page with JavaScript off has its table and a
// chart whose bars link. The kept key is removed and revoked at the end: the lane's other specs meet the world as it was.
test.describe.configure({ mode: 'serial' });

const COLUMNS = ['Action', 'Runs', 'Failed', 'Failure rate', 'p50', 'p95', 'Queue p50', 'Retried'];

/** The figures a person would compute from the operations, for the history filter a Runs link names. */
function expectedFigures(operations: readonly ApiOperation[], runsHref: string) {
  const params = new URL(runsHref, 'http://console.test').searchParams;
  const start = Date.parse(params.get('from') ?? '');
  const end = Date.parse(params.get('to') ?? '') + 1_000;
  const runs = operations.filter((op) => op.action === params.get('action') && Date.parse(op.created_at) >= start && Date.parse(op.created_at) < end);
  const failed = runs.filter((op) => op.status === 'failed' || op.status === 'error').length;
  const counted = runs.filter((op) => op.status !== 'cancelled' && op.status !== 'skipped').length;
  const durations = runs
    .filter((op) => op.status === 'finished')
    .map((op) => op.total_duration_ms)
    .sort((a, b) => a - b);
  // The nearest rank: the smallest duration with at least that share of them at or below it.
  const rank = (fraction: number) => durations[Math.ceil(fraction * durations.length) - 1];
  return { runs: runs.length, failed, rate: counted > 0 ? `${((failed / counted) * 100).toFixed(1)}%` : '—', p50: rank(0.5), p95: rank(0.95) };
}

/** A duration as the console shows it (src/lib/format.ts), or "—" when there is none. */
const duration = (ms: number | undefined) => (ms === undefined ? '—' : formatDuration(ms));

const insightsTable = (page: Page) => page.getByRole('table', { name: /^Operations per action/ });

async function cell(page: Page, row: Locator, column: string): Promise<Locator> {
  const headers = await insightsTable(page).getByRole('columnheader').allTextContents();
  return row.getByRole('cell').nth(headers.indexOf(column) - 1);
}

let scopedKey: { id: number; key: string } | undefined;
/** Whether the test kept the key (then the end removes it). */
let kept = false;
let orgId = '';
let project = { id: '', name: '' };

test.beforeAll(async ({ request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const staging = (await api.allProjects()).find((p) => p.name === 'acme-analytics-staging');
  if (!staging?.organization) throw new Error('the demo world has no acme-analytics-staging in an organization');
  orgId = staging.organization.id;
  project = { id: staging.id, name: staging.name };
  scopedKey = await api.post<{ id: number; key: string }>(`/organizations/${orgId}/api_keys`, { key_name: 'insights e2e', project_id: project.id });
});

test.afterAll(async ({ browser, request }) => {
  if (!scopedKey) return;
  if (kept) {
    const context = await browser.newContext();
    await holdKey(context, scopedKey.key);
    const page = await context.newPage();
    await page.goto('/settings/archive');
    await page.getByRole('table', { name: 'Keys the archive reads with' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await expect(page.getByRole('button', { name: 'Keep history' })).toBeEnabled();
    await context.close();
  }
  await new ControlApi(request, E2E_API_KEY).delete(`/organizations/${orgId}/api_keys/${scopedKey.id}`);
});

test('each action’s Runs, Failed, Failure rate, p50 and p95 are those of the seeded operations, and a Failed link lists exactly that many', async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(150_000);
  if (!scopedKey) throw new Error('no key');
  await holdKey(context, scopedKey.key);
  // The page asks again each second while the archive reads (5 s by default).
  await context.addInitScript(() => window.localStorage.setItem('ops-console.poll-interval-ms', '1000'));
  await page.goto(`/projects/${project.id}/insights?window=90d`);
  await expect(page.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
  await expect(page.getByText(`${project.name} is not in the history archive`)).toBeVisible();
  await expectNoSeriousViolations(page);
  await page.getByRole('button', { name: 'Keep history' }).click();
  kept = true;
  // The first kept key may open the store (PGlite's first start), then the archive reads the project's history.
  await expect(insightsTable(page)).toBeVisible({ timeout: 90_000 });
  await expect(page.getByText(/still reading this project/)).toHaveCount(0, { timeout: 30_000 });
  await expect(insightsTable(page).getByRole('columnheader')).toHaveText(COLUMNS);

  // The world goes on (availability checks, a retried failure) and the archive follows: read both again until they agree.
  const api = new ControlApi(request, scopedKey.key);
  let mostFailed = { failed: 0, href: '' };
  await expect(async () => {
    await page.reload();
    const operations = await api.operations(project.id);
    const rows = insightsTable(page).locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(2);
    mostFailed = { failed: 0, href: '' };
    for (const row of await rows.all()) {
      const runsLink = (await cell(page, row, 'Runs')).getByRole('link');
      const expected = expectedFigures(operations, (await runsLink.getAttribute('href')) ?? '');
      await expect(runsLink).toHaveText(String(expected.runs), { timeout: 1 });
      const failedLink = (await cell(page, row, 'Failed')).getByRole('link');
      await expect(failedLink).toHaveText(String(expected.failed), { timeout: 1 });
      await expect(await cell(page, row, 'Failure rate')).toContainText(expected.rate, { timeout: 1 });
      await expect(await cell(page, row, 'p50')).toContainText(duration(expected.p50), { timeout: 1 });
      await expect(await cell(page, row, 'p95')).toContainText(duration(expected.p95), { timeout: 1 });
      if (expected.failed > mostFailed.failed) mostFailed = { failed: expected.failed, href: (await failedLink.getAttribute('href')) ?? '' };
    }
    expect(mostFailed.failed).toBeGreaterThan(0);
  }).toPass({ timeout: 60_000 });

  // The Failed figure's link: the history filtered to exactly those operations, answered by the archive.
  await insightsTable(page).locator(`a[href="${mostFailed.href}"]`).click();
  await expect(page).toHaveURL(mostFailed.href);
  await expect(
    page.getByText(`From the history archive, over the whole record of this project: ${mostFailed.failed} ${mostFailed.failed === 1 ? 'match' : 'matches'}.`),
  ).toBeVisible();
  await expect(page.getByRole('table', { name: /operations/i })).toHaveAttribute('aria-rowcount', String(mostFailed.failed + 1));

  // The table and chart in the dark scheme (the offer above was checked in the light one); over a week, since axe's
  // time grows with the chart's bars (3 s for 7 days, 10 s for 90 on a quiet machine).
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`/projects/${project.id}/insights?window=7d`);
  await expect(page.getByRole('img', { name: /^Operations per day by status, the last 7 days/ })).toBeVisible();
  await expectNoSeriousViolations(page);
});

test('with JavaScript off, the insights page has its table and a chart whose bars link to each day’s history', async ({ browser }) => {
  if (!scopedKey) throw new Error('no key');
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    await holdKey(context, scopedKey.key);
    const page = await context.newPage();
    await page.goto(`/projects/${project.id}/insights`);
    await expect(page.getByRole('heading', { level: 1, name: 'Insights' })).toBeVisible();
    // The window is chosen by a link: the server renders the other window.
    await page.getByRole('navigation', { name: 'Window' }).getByRole('link', { name: '30 days' }).click();
    await expect(page).toHaveURL(/\?window=30d$/);
    await expect(insightsTable(page)).toHaveAccessibleName(/^Operations per action, the last 30 days/);
    await expect(insightsTable(page).getByRole('columnheader')).toHaveText(COLUMNS);
    const chart = page.getByRole('img', { name: /^Operations per day by status, the last 30 days \(UTC\)/ });
    await expect(chart).toBeVisible();
    const bars = chart.locator('a');
    expect(await bars.count()).toBeGreaterThan(3);
    const href = (await bars.first().getAttribute('href')) ?? '';
    expect(href).toMatch(new RegExp(`^/projects/${project.id}\\?from=[^&]+&to=[^&]+$`));
    // A bar leads to that day's history, rendered by the server too.
    await bars.first().click();
    await expect(page).toHaveURL(href);
    await expect(page.getByRole('heading', { level: 1, name: project.name })).toBeVisible();
  } finally {
    await context.close();
  }
});
