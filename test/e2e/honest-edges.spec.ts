import { expect, test } from '@playwright/test';
import { BROWSER_TIME_ZONE } from '../../playwright.config';
import { ControlApi, projectCensus } from './support/api';
import { createPersonalKeyOnScreen } from './support/api-keys';
import { clearFaults, collectPageErrors, setFaults } from './support/faults';
import { operationPath, projectPath, untilTakenOver } from './support/screens';
import { E2E_API_KEY, holdKey, SESSION_COOKIE } from './support/session';

// The honest edges as a person meets them: a browser in another time zone than the server hydrates every
// server-rendered page without an error, and a session the server can no longer open (a restart under a
// new secret) is never blamed on the key.

/** A cookie sealed under a secret this server does not have: what every tab holds after a restart with a new secret. */
const FOREIGN_COOKIE = `v1.${Buffer.alloc(64, 7).toString('base64url')}`;

test('a browser in another time zone than the server hydrates every server-rendered screen with no error', async ({ page, context, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const { big } = await projectCensus(api);
  const [newest] = await api.newestOperations(big.id, 1);
  // The browser runs in BROWSER_TIME_ZONE (UTC+05:30), the server in UTC.
  expect(BROWSER_TIME_ZONE).toBe('Asia/Kolkata');
  await page.goto('/');
  expect(await page.evaluate(() => new Date().getTimezoneOffset())).toBe(-330);
  const errors = collectPageErrors(page);

  // Signed out first: the key screen, server-rendered too.
  await page.reload();
  await expect(page.getByLabel(/API key/).first()).toBeVisible();
  await holdKey(context);
  for (const path of ['/', projectPath(big.id), operationPath(big.id, newest!.id), '/activity', '/settings/api-keys']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }), path).toBeVisible();
    // Hydrated: the switch names the browser's own offset (never the server's).
    await expect(page.getByRole('combobox', { name: 'Times in' }).locator('option[value="local"]'), path).toHaveText('Local time (UTC+05:30)');
  }
  expect(errors, 'no hydration error (#418) nor any other').toEqual([]);
});

test.describe('a session the server can no longer open', () => {
  test('an open tab says the server restarted, not that the key was rejected', async ({ page, context }) => {
    await holdKey(context);
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
    // A tab open a while: taken over, and what it asks once it has (the archive's figures) answered.
    await untilTakenOver(page);
    await page.waitForLoadState('networkidle');
    const [cookie] = (await context.cookies()).filter((c) => c.name === SESSION_COOKIE);
    await context.addCookies([{ ...cookie!, value: FOREIGN_COOKIE }]);

    // The next request the page makes meets the server's 401.
    await page.getByRole('link', { name: 'API keys' }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toHaveText("Your session ended: the console's server restarted. Sign in again.");
    await expect(alert).not.toContainText(/rejected/i);
    await expect(page.getByLabel(/API key/).first()).toBeVisible();
  });

  test('a page opened with such a cookie says the same', async ({ page, context }) => {
    await holdKey(context);
    const [cookie] = (await context.cookies()).filter((c) => c.name === SESSION_COOKIE);
    await context.addCookies([{ ...cookie!, value: FOREIGN_COOKIE }]);
    await page.goto('/activity');
    await expect(page.getByRole('alert')).toHaveText("Your session ended: the console's server restarted. Sign in again.");
    await expect(page).toHaveURL(/\/activity$/);
  });
});

test('Activity after the projects page: first rows after the first project reads, no list read again, and no claim before it has looked', async ({
  page,
  context,
}) => {
  await holdKey(context);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  // The projects page's own requests (organizations, the list) have answered.
  await expect(page.getByRole('table').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  const sent: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/api/v2/')) sent.push(`${url.pathname}${url.search}`);
  });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  const firstRow = page
    .getByRole('table', { name: /activity across projects/i })
    .locator('tbody tr')
    .first();
  await expect(firstRow).toBeVisible();
  // Rows after the first project reads, not after a round: the busy and recently active projects are read
  // first, and the lists come from the cache (at the view's pace of a request a second, within 2 s; the
  // time itself is docs/console.md's figure, not this test's).
  const projectReads = sent.filter((path) => /^\/api\/v2\/projects\/[^/]+\/operations/.test(path));
  expect(projectReads.length, 'project reads before the first rows').toBeLessThanOrEqual(2);
  await expect(page).toHaveTitle('Activity · Ops Console');
  // What the projects page read is not asked for again: the organizations and the personal list.
  expect(sent.filter((path) => path === '/api/v2/users/me/organizations' || /^\/api\/v2\/projects\?limit=\d+$/.test(path))).toEqual([]);
});

test('API keys: the user by name, and a key just created reads "just now" even with the browser’s clock behind the API’s', async ({ page, context }) => {
  // The browser's clock 20 s behind the server's (as a laptop's may be): the new key's created_at is "ahead" of it.
  await page.clock.install({ time: Date.now() - 20_000 });
  await holdKey(context);
  await page.goto('/settings/api-keys');
  const panel = page.getByRole('region', { name: /Signed in with: Personal key/ });
  await expect(panel.getByRole('definition').first()).toContainText('Demo User (demo@example.com)');

  const name = `e2e-past-${Date.now().toString(36)}`;
  const dialog = await createPersonalKeyOnScreen(page, name);
  await dialog
    .getByRole('button', { name: /close|done/i })
    .first()
    .click();
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  const created = row.locator('td[data-label="Created"] time');
  await expect(created).toContainText('just now');
  await expect(created).not.toContainText(/\bin \d+ seconds?\b/);
  // Tidy: revoke it again.
  await row.getByRole('button', { name: `Revoke key ${name}` }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(row).toHaveCount(0);
});

test('on a phone the timeline’s labels are readable (at least 11 px tall), its caption names statuses by their labels', async ({ page, context, request }) => {
  const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
  await holdKey(context);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${projectPath(big.id)}?status=error`);
  const figure = page.getByRole('figure').filter({ has: page.locator('figcaption', { hasText: 'Timeline' }) });
  await expect(figure).toBeVisible();
  await expect(figure.locator('figcaption')).not.toContainText(/\bfailed\b/);
  await expect(figure.locator('figcaption')).toContainText(/marked Error/);
  const label = figure.locator('.tl-lane__label').first();
  await expect(label).toBeVisible();
  const box = await label.boundingBox();
  expect(box?.height ?? 0).toBeGreaterThanOrEqual(11);
  // Every tick that says something, at a readable size.
  // Measured once the chart has laid out (a fresh-clone run caught a label at 0 px mid-render).
  const ticks = () => figure.locator('.tl-tick text').evaluateAll((texts) => texts.filter((t) => t.textContent).map((t) => t.getBoundingClientRect().height));
  await expect.poll(async () => (await ticks()).length).toBeGreaterThan(0);
  await expect.poll(async () => Math.min(...(await ticks()))).toBeGreaterThanOrEqual(11);
  // The page itself does not scroll sideways: only the chart does.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('Activity fits its box at 1024 and 1280 px (Date on screen), names branches the console knows, and offers Watch only on work in flight', async ({
  page,
  context,
  request,
}) => {
  const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
  await holdKey(context);
  // The project's page reads its branches: the activity view names them from there, at no cost to its budget.
  await page.goto(projectPath(big.id));
  await expect(page.getByRole('heading', { level: 1, name: big.name })).toBeVisible();
  await expect(page.getByRole('table', { name: /branches/i })).toBeVisible();
  // A click before the browser takes the page over is a full page load: the branches read would be gone.
  await untilTakenOver(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  const table = page.getByRole('table', { name: /activity across projects/i });
  const bigRows = table.locator('tbody tr').filter({ has: page.getByRole('link', { name: big.name, exact: true }) });
  await expect(bigRows.first()).toBeVisible({ timeout: 15_000 });
  await expect(bigRows.first().locator('td[data-label="Branch"]')).not.toContainText(/^br-/);

  for (const width of [1024, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    const fits = await table.evaluate((el) => {
      const wrap = el.parentElement!;
      const date = el.querySelector('thead th:last-child')!.getBoundingClientRect();
      return { table: el.scrollWidth, box: wrap.clientWidth, dateRight: date.right, viewport: window.innerWidth };
    });
    expect(fits.table, `table within its box at ${width} px`).toBeLessThanOrEqual(fits.box);
    expect(fits.dateRight, `Date on screen at ${width} px`).toBeLessThanOrEqual(fits.viewport);
  }

  // Ended operations have nothing to watch.
  const rows = table.locator('tbody tr');
  const count = await rows.count();
  for (let i = 0; i < count; i++) {
    const row = rows.nth(i);
    const status = (await row.locator('td[data-label="Status"]').innerText()).trim();
    const watch = row.getByRole('button', { name: /^Watch / });
    if (/^(OK|Cancelled|Skipped)/.test(status)) await expect(watch, status).toHaveCount(0);
  }
});

test('a change whose connection drops is an unknown outcome: said so, what it touched read again, and only then Retry', async ({ page, context, request }) => {
  const project = (await new ControlApi(request, E2E_API_KEY).projects()).find((p) => p.locked !== true);
  if (!project) throw new Error('the demo seed has no personal project that takes changes');
  await holdKey(context);
  await page.goto(projectPath(project.id));
  await expect(page.getByRole('heading', { level: 1, name: project.name })).toBeVisible();
  const reads: { path: string; at: number }[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (req.method() === 'GET' && url.pathname.startsWith('/api/v2/')) reads.push({ path: url.pathname, at: Date.now() });
  });

  // Ten: Chromium sends the request again by itself when a kept-alive connection closes with no answer (7 times, measured).
  await setFaults(request, [{ fault: { type: 'drop-connection' }, method: 'POST', path: '/projects/*/branches', count: 10 }]);
  try {
    await page.getByRole('button', { name: 'Create branch', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Create branch' });
    await dialog.getByLabel('Branch name').fill(`e2e-dropped-${Date.now().toString(36)}`);
    await dialog.getByRole('button', { name: 'Create branch' }).click();
    const alert = dialog.getByRole('alert');
    await expect(alert).toContainText('it is not known whether this change was made');
    const failedAt = Date.now();
    await expect(alert.getByRole('button', { name: 'Retry' })).toBeVisible();
    await expect(alert).toContainText('were read again');
    await expect(alert).not.toContainText(/Could not create the branch/);
    // What it could have touched was read again before Retry was offered.
    expect(reads.some((r) => r.path === `/api/v2/projects/${project.id}/branches` && r.at >= failedAt - 5_000)).toBe(true);
  } finally {
    await clearFaults(request);
  }
});
