import { expect, test } from '@playwright/test';
import { ControlApi, type ApiOperation } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { operationPath, projectPath } from './support/screens';
import { failuresOnNormalPath } from './support/normal-path';
import { E2E_API_KEY, holdKey } from './support/session';

test('a change started in one project appears on /activity and reaches OK there', async ({ page, context, request }) => {
  test.setTimeout(60_000);
  const api = new ControlApi(request, E2E_API_KEY);
  // A personal project that takes changes (other specs may be changing others at the same time).
  const project = (await api.allProjects()).find((p) => p.organization === null && p.locked !== true);
  if (!project) throw new Error('the demo seed has no unlocked personal project');
  await holdKey(context);
  // Busy projects every second, so the end shows promptly; the budget stays the default 60 a minute.
  await context.addInitScript(() => window.localStorage.setItem('ops-console.poll-interval-ms', '1000'));

  await page.goto('/activity');
  await expect(page.getByRole('heading', { level: 1, name: 'Activity' })).toBeVisible();
  const table = page.getByRole('table', { name: /activity across projects/i });
  await expect(page.getByText(/costs now: \d+ requests in the last minute/i)).toBeVisible();

  const name = `e2e-activity-${Date.now().toString(36)}`;
  const created = await api.post<{ operations: ApiOperation[] }>(`/projects/${encodeURIComponent(project.id)}/branches`, { branch: { name } });
  const operation = created.operations.find((op) => op.action === 'create_branch');
  if (!operation) throw new Error('creating a branch started no create_branch operation');

  // Found by the scheduler in its turn (six projects, an idle one every 6 s at this interval), then followed.
  const href = `a[href="${operationPath(project.id, operation.id)}"]`;
  await expect(table.locator(href)).toBeVisible({ timeout: 30_000 });
  const row = table.getByRole('row').filter({ has: page.locator(href) });
  await expect(row.getByRole('link', { name: project.name, exact: true })).toHaveAttribute('href', projectPath(project.id));
  await expect(row.getByRole('cell').nth(3)).toHaveText(/^(OK|In progress|Scheduling)/);
  await expect(row.getByText('OK', { exact: true })).toBeVisible({ timeout: 30_000 });

  await expectNoSeriousViolations(page);

  // The header links here, and a reload keeps the filters in the address.
  await page.goto(`/activity?project=${encodeURIComponent(project.id)}`);
  await expect(page.getByRole('combobox', { name: 'Project', exact: true })).toHaveValue(project.id, { timeout: 15_000 });
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' })).toHaveAttribute('href', '/activity');
});

// How soon Activity shows its first row in a fresh session (3 s) is the bench's to measure (`npm run bench -- --only=first-row`,
// bench/run.ts), on a machine doing nothing else: here, beside two other lanes, it measured the machine.

test('the normal path without a kept key: no console error, no failed or refused request of the console’s own', async ({ browser, baseURL }) => {
  test.setTimeout(90_000);
  expect(await failuresOnNormalPath(browser, baseURL)).toEqual([]);
});
