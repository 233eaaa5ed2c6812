import { expect, test, type Page } from '@playwright/test';
import { ControlApi, projectCensus } from '../e2e/support/api';
import { openNewestOperationOfBigProject, operationsTable, projectPath } from '../e2e/support/screens';
import { E2E_API_KEY, holdKey } from '../e2e/support/session';

// The README's pictures of the main screens, as a person first sees them on a laptop.
test.use({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', deviceScaleFactor: 1 });

const shoot = (page: Page, name: string) =>
  page.screenshot({ path: `docs/screenshots/${name}.png`, animations: 'disabled', caret: 'hide' });

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
    const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
    await page.goto(projectPath(big.id));
    const table = operationsTable(page);
    await expect(table.locator('tbody tr').nth(3)).toBeVisible();
    await table.getByRole('button', { name: /^Watch/ }).first().click();
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
