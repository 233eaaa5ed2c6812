import { expect, test, type Locator, type Page } from '@playwright/test';
import { ControlApi, type ApiProject } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { escapeRegExp, projectPath } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

/** A project that accepts changes now: personal first, not locked, nothing but availability checks in flight. */
async function quietProject(api: ControlApi): Promise<ApiProject> {
  const projects = (await api.allProjects()).filter((p) => p.locked !== true).sort((a, b) => Number(a.organization !== null) - Number(b.organization !== null));
  for (const project of projects) {
    const newest = await api.newestOperations(project.id, 50);
    const busy = newest.some((op) => op.action !== 'check_availability' && !['finished', 'error', 'cancelled', 'skipped'].includes(op.status));
    if (!busy) return project;
  }
  throw new Error('the demo seed has no project free of running operations');
}

/** An operation's end in the tray: its work (2–6 s); or a failed attempt, then the tray's next check while a retry is ahead (30 s, DESIGN.md §3) finding the retry done. */
const OK_WITHIN_MS = 60_000;

function watchPanel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Watched operations' });
}

/** The panel's group for one request, found by its heading ("Create branch dev: 2 operations"). */
function watchedGroup(page: Page, heading: string | RegExp): Locator {
  return watchPanel(page)
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: heading }) });
}

function watchedOperation(group: Locator, action: string): Locator {
  return group.getByRole('listitem').filter({ has: group.page().getByRole('link', { name: action, exact: true }) });
}

test('starts work from the console and watches it finish, across a reload', async ({ page, context, request }) => {
  // The simulated operations take real seconds: 23–29 s in CI runs beside two other lanes. The simulated platform
  // also fails 2% of first attempts at random and retries them 5–15 s later (sim/control-plane/operations.ts):
  // each "OK" below may come after an Error and a retry, the end the person would see.
  test.setTimeout(180_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const project = await quietProject(api);
  await holdKey(context);
  // Check every second (the person's refresh preference) so the test sees each end promptly.
  await context.addInitScript(() => window.localStorage.setItem('ops-console.poll-interval-ms', '1000'));

  await page.goto(projectPath(project.id));
  await page.getByRole('button', { name: 'Create branch', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Create branch' });
  const name = `e2e-watch-${Date.now().toString(36)}`;
  await dialog.getByLabel('Branch name').fill(name);
  await expect(dialog.getByRole('checkbox', { name: /read-write compute/ })).toBeChecked();
  await expectNoSeriousViolations(page);
  await dialog.getByRole('button', { name: 'Create branch' }).click();
  await expect(dialog).toBeHidden({ timeout: 20_000 });

  const created = watchedGroup(page, `Create branch ${name}: 2 operations`);
  const createBranch = watchedOperation(created, 'Create branch');
  const startCompute = watchedOperation(created, 'Start compute');
  await expect(createBranch).toContainText(project.name);
  // Both reach OK in place, without a reload.
  await expect(createBranch.getByText('OK', { exact: true })).toBeVisible({ timeout: OK_WITHIN_MS });
  await expect(startCompute.getByText('OK', { exact: true })).toBeVisible({ timeout: OK_WITHIN_MS });
  await expect(page).toHaveTitle(/^\(2 finished\) /);
  await expectNoSeriousViolations(page);

  await page.reload();
  await expect(createBranch.getByText('OK', { exact: true })).toBeVisible();
  await expect(startCompute.getByText('OK', { exact: true })).toBeVisible();
  await expect(createBranch).toContainText(/took \d/);

  const row = page
    .getByRole('table', { name: 'Branches and computes' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${escapeRegExp(name)}`) }) });
  await expect(row).toContainText('Active', { timeout: 10_000 });
  await row.getByRole('button', { name: /^Suspend compute/ }).click();
  const confirm = page.getByRole('alertdialog', { name: /^Suspend compute/ });
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Suspend', exact: true }).click();

  const suspended = watchedGroup(page, /^Suspend compute .+: 1 operation$/);
  const suspend = watchedOperation(suspended, 'Suspend compute');
  await expect(suspend).toBeVisible({ timeout: 20_000 });
  await expect(suspend.getByText('OK', { exact: true })).toBeVisible({ timeout: OK_WITHIN_MS });
  await expect(row).toContainText('Idle', { timeout: 10_000 });
});
