import { expect, test } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { ControlApi, projectCensus } from './support/api';
import { openNewestOperationOfBigProject, operationsTable, projectPath } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

test.describe('signed out', () => {
  test('the key screen', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByLabel(/API key/)).toBeVisible();
    await expectNoSeriousViolations(page);
  });

  test('the key screen with a rejected key', async ({ page }) => {
    await page.goto('/');
    const field = page.getByLabel(/API key/).and(page.locator('input[type="password"]'));
    await field.fill('not-a-valid-key');
    await field.press('Enter');
    await expect(page.getByRole('alert')).toContainText(/rejected/i);
    await expectNoSeriousViolations(page);
  });
});

test.describe('signed in', () => {
  test.beforeEach(async ({ context }) => {
    await holdKey(context);
  });

  test('the projects list', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
    await expect(page.getByRole('main').getByRole('link').first()).toBeVisible();
    await expectNoSeriousViolations(page);
  });

  test('the operations table', async ({ page, request }) => {
    const { big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
    await page.goto(projectPath(big.id));
    await expect(operationsTable(page).locator('tbody tr').first()).toBeVisible();
    await expect(page.getByRole('button', { name: /Load more/ })).toBeVisible();
    await expectNoSeriousViolations(page);
  });

  test('the operation detail', async ({ page, request }) => {
    await openNewestOperationOfBigProject(page, new ControlApi(request, E2E_API_KEY));
    await expectNoSeriousViolations(page);
  });

  test('the API keys screen', async ({ page }) => {
    await page.goto('/settings/api-keys');
    await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
    await expect(page.getByRole('main').getByText(/^Loading/)).toHaveCount(0);
    await expectNoSeriousViolations(page);
  });

  test('the not-found page', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page.getByRole('heading', { level: 1, name: /not found/i })).toBeVisible();
    await expectNoSeriousViolations(page);
  });

  test('from the top of the page, Tab reaches the first project and Enter opens it', async ({ page }) => {
    await page.goto('/');
    const first = page.getByRole('main').getByRole('link').first();
    await expect(first).toBeVisible();
    const href = await first.getAttribute('href');
    expect(href).toMatch(/^\/projects\/[^/]+$/);

    let presses = 0;
    while (!(await first.evaluate((el) => el === document.activeElement)) && presses < 40) {
      await page.keyboard.press('Tab');
      presses++;
    }
    await expect(first).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(href ?? '');
    await expect(operationsTable(page).or(page.getByText(/No operations yet/))).toBeVisible();
  });
});
