import { expect, test } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { ControlApi } from './support/api';
import { openNewestOperationOfBigProject, operationsTable } from './support/screens';
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

// The projects list, a project's operations table and the API keys screen, with their data, are checked in light
// and dark on the every-screen tour of archive.spec.ts (support/tour.ts): here, the screens it does not visit.
test.describe('signed in', () => {
  test.beforeEach(async ({ context }) => {
    await holdKey(context);
  });

  test('the operation detail', async ({ page, request }) => {
    await openNewestOperationOfBigProject(page, new ControlApi(request, E2E_API_KEY));
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
