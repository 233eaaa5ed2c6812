import { expect, test, type Page } from '@playwright/test';
import { ControlApi, projectCensus } from '../e2e/support/api';
import { openNewestOperationOfBigProject, operationsTable, projectPath } from '../e2e/support/screens';
import { ARCHIVE_SOURCES_PATH } from '../../src/api/archive-schemas';
import { webhookDeliveriesPath, WEBHOOKS_PATH } from '../../src/api/notification-schemas';
import { sendWhenNotBusy } from '../e2e/support/api';
import { E2E_API_KEY, holdKey } from '../e2e/support/session';
import { tourOfScreens } from '../e2e/support/tour';

// The README's pictures of the main screens, as a person first sees them on a laptop.
test.use({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', deviceScaleFactor: 1 });

const shoot = (page: Page, name: string) => page.screenshot({ path: `docs/screenshots/${name}.png`, animations: 'disabled', caret: 'hide' });

test('key screen', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByLabel(/API key/)).toBeVisible();
  await shoot(page, 'key-screen');
});

test.describe('signed in', () => {
  test.beforeEach(async ({ context }) => {
    await holdKey(context);
  });

  test('projects', async ({ page }) => {
    await page.goto('/');
    // An organization's list shows more of the demo than the two personal projects.
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ index: 1 });
    await expect(page).toHaveURL(/\?org=/);
    await expect(page.getByRole('main').getByRole('link').first()).toBeVisible();
    await shoot(page, 'projects');
  });

  test('operations', async ({ page, request }) => {
    const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
    await page.goto(projectPath(big.id));
    await expect(page.getByRole('heading', { level: 1, name: big.name })).toBeVisible();
    await expect(operationsTable(page).locator('tbody tr').nth(9)).toBeVisible();
    await shoot(page, 'operations');
  });

  test('filtered history', async ({ page, request }) => {
    const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
    await page.goto(`${projectPath(big.id)}?status=failed,error,cancelled`);
    const searched = page.getByRole('status').filter({ hasText: /^Searched the whole history/ });
    await expect(searched).toBeVisible({ timeout: 30_000 });
    // Tall enough to show the filters, the progress, the timeline and the first matching rows together.
    await page.setViewportSize({ width: 1280, height: 1600 });
    await page.getByRole('heading', { level: 2, name: 'Operations', exact: true }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
    await expect(operationsTable(page).locator('tbody tr').nth(9)).toBeVisible();
    await shoot(page, 'filtered-history');
  });

  test('timeline', async ({ page, request }) => {
    const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
    // Everything that did not end OK, over the whole history: each outcome has its own shape.
    await page.goto(`${projectPath(big.id)}?status=failed,error,cancelled,skipped`);
    await expect(page.getByRole('status').filter({ hasText: /^Searched the whole history/ })).toBeVisible({ timeout: 30_000 });
    const figure = page.getByRole('figure');
    await expect(figure.getByRole('link').first()).toBeVisible();
    // The watch tray floats over the page's corner: not part of the figure.
    await figure.screenshot({ path: 'docs/screenshots/timeline.png', animations: 'disabled', caret: 'hide', style: '.watch-panel { display: none; }' });
  });

  test('activity', async ({ page, request }) => {
    const api = new ControlApi(request, E2E_API_KEY);
    await page.goto('/activity');
    await expect(page.getByRole('heading', { level: 1, name: 'Activity' })).toBeVisible();
    // Every project read once: nothing left "not checked yet".
    await expect(page.getByText(/oldest check/)).toBeVisible({ timeout: 30_000 });
    // A personal project's change beside the organizations' (found in its turn, within a round).
    const project = (await api.allProjects()).find((p) => p.organization === null && p.locked !== true);
    if (project) await api.post(`/projects/${encodeURIComponent(project.id)}/branches`, { branch: { name: `preview-${Date.now().toString(36)}` } });
    const table = page.getByRole('table', { name: /activity across projects/i });
    await expect(table.getByRole('link', { name: 'Create branch' }).first()).toBeVisible({ timeout: 45_000 });
    await shoot(page, 'activity');
  });

  test('phone', async ({ page, request }) => {
    // A 390 px phone: the header on one line, the watch tray above the page, each operation a card, status first.
    await page.setViewportSize({ width: 390, height: 844 });
    const api = new ControlApi(request, E2E_API_KEY);
    const { big } = await projectCensus(api);
    // Something in flight to watch, whenever this runs: a restart of the project's first compute (waiting out a 423).
    const { endpoints } = await api.get<{ endpoints: { id: string }[] }>(`/projects/${big.id}/endpoints`);
    const restart = `/api/v2/projects/${big.id}/endpoints/${endpoints[0]?.id ?? ''}/restart`;
    const headers = { Authorization: `Bearer ${E2E_API_KEY}` };
    await expect.poll(async () => (await request.post(restart, { headers, data: {} })).status(), { timeout: 30_000 }).toBe(200);
    await page.goto(projectPath(big.id));
    const table = operationsTable(page);
    await expect(table.locator('tbody tr').nth(3)).toBeVisible();
    await table
      .getByRole('button', { name: /^Watch/ })
      .first()
      .click();
    await expect(page.getByRole('complementary', { name: 'Watched operations' }).getByRole('listitem').first()).toBeVisible();
    await page.mouse.move(0, 0);
    await page.evaluate(() => {
      if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
      window.scrollTo(0, 0);
    });
    await shoot(page, 'phone');
    // Further down, the history: one card per operation.
    await table.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.evaluate(() => window.scrollBy(0, -8));
    await shoot(page, 'phone-history');
  });

  test('operation detail', async ({ page, request }) => {
    const op = await openNewestOperationOfBigProject(page, new ControlApi(request, E2E_API_KEY));
    await expect(page.getByRole('main').getByText(op.id, { exact: true })).toBeVisible();
    await shoot(page, 'operation-detail');
  });
});

// Every screen at a phone's width and a laptop's, light and dark (docs/screenshots/screens/), with a key kept by the
// archive and a webhook whose delivery waits to be retried, so the settings pages show their tables.
test('every screen, 390 and 1400 px, light and dark', async ({ browser, baseURL, request }) => {
  test.setTimeout(300_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const context = await browser.newContext({ ...(baseURL ? { baseURL } : {}), deviceScaleFactor: 1 });
  await holdKey(context);
  expect((await context.request.post(ARCHIVE_SOURCES_PATH, { data: {} })).status()).toBe(201);
  const project = (await api.allProjects()).find((p) => p.name === 'blog-backend');
  if (!project) throw new Error('the demo seed has no blog-backend project');
  const created = await context.request.post(WEBHOOKS_PATH, {
    data: {
      url: 'http://127.0.0.1:9/hooks/ops-console',
      format: 'json',
      scope: { kind: 'project', projectId: project.id },
      events: ['operation.failed', 'operation.finished'],
    },
  });
  expect(created.status()).toBe(201);
  const webhookId = ((await created.json()) as { webhook: { id: string } }).webhook.id;
  await sendWhenNotBusy(() => request.post(`/api/v2/projects/${project.id}/branches`, { headers: { Authorization: `Bearer ${E2E_API_KEY}` }, data: {} }));
  await expect
    .poll(async () => ((await (await context.request.get(webhookDeliveriesPath(webhookId))).json()) as { deliveries: unknown[] }).deliveries.length, {
      timeout: 90_000,
    })
    .toBeGreaterThan(0);
  const page = await context.newPage();
  // The whole history read once: the archive's table says Following.
  await page.goto('/settings/archive');
  await expect(page.getByRole('table', { name: 'Keys the archive reads with' }).getByText('Following')).toBeVisible({ timeout: 180_000 });
  for (const stop of await tourOfScreens(api)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const width of [1400, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto(stop.path);
        await stop.ready(page);
        await page.mouse.move(0, 0);
        await page.screenshot({ path: `docs/screenshots/screens/${stop.name}-${width}-${colorScheme}.png`, animations: 'disabled', caret: 'hide' });
      }
    }
  }
  await context.close();
});
