import { expect, test } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { ControlApi, projectCensus } from './support/api';
import { collectPageErrors } from './support/faults';
import { projectPath, untilTakenOver } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

// The edges a newcomer meets: addresses that cannot be decoded, a project that does not
// exist, a connection that is gone, and each page naming itself in the tab.

test.beforeEach(async ({ context }) => {
  await holdKey(context);
});

test('a malformed address is the console\'s own "Page not found", with a way back', async ({ page }) => {
  const errors = collectPageErrors(page);
  for (const path of ['/%%%garbage', '/settings/%E0%A4%A']) {
    const response = await page.goto(path);
    expect(response?.headers()['content-type'], path).toMatch(/text\/html/);
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' }), path).toBeVisible();
    await expect(page.getByRole('link', { name: 'Go to your projects' })).toBeVisible();
    await expect(page).toHaveTitle('Page not found · Ops Console');
  }
  // A project id that cannot be decoded is a project that does not exist.
  await page.goto('/projects/%E0%A4%A');
  await expect(page.getByRole('heading', { level: 1, name: /not found/ })).toBeVisible();
  expect(errors).toEqual([]);
});

test('a project that does not exist is one "Project not found" page: no errors, no actions, no exports', async ({ page }) => {
  // The server knows before its first byte: the address answers 404, and the page says so.
  const response = await page.goto(projectPath('no-such-project-404'));
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Project not found' })).toBeVisible();
  await expect(page).toHaveTitle('Project not found · Ops Console');
  await expect(page.getByRole('main').getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Create branch' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Export/ })).toHaveCount(0);
  await expect(page.locator('.notices')).toBeEmpty();
  await page.getByRole('link', { name: 'Back to your projects' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeFocused();
  await expectNoSeriousViolations(page);
});

test('with every connection gone, the branches say so too instead of loading for good', async ({ page, context, request }) => {
  const { small, big } = await projectCensus(new ControlApi(request, E2E_API_KEY));
  const other = small[0];
  if (!other) throw new Error('the demo seed needs a second project');
  // The project screen's code is in (a first project page), then the browser goes offline.
  await page.goto(projectPath(big.id));
  await expect(page.getByRole('heading', { level: 1, name: big.name })).toBeVisible();
  await expect(page).toHaveTitle(`${big.name} · Operations · Ops Console`);
  await untilTakenOver(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeFocused();
  await expect(page).toHaveTitle('Projects · Ops Console');
  const link = page.getByRole('main').getByRole('link', { name: other.name, exact: true });
  await expect(link).toBeVisible();
  await context.setOffline(true);
  try {
    await link.click();
    await expect(page.getByRole('alert').filter({ hasText: 'Could not load the branches and computes.' })).toContainText('Could not reach the API');
    await expect(page.getByRole('alert').filter({ hasText: 'Could not load the operations.' })).toBeVisible();
  } finally {
    await context.setOffline(false);
  }
});
