import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { ControlApi, sendWhenNotBusy, untilSettled, type ApiProject } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { clearFaults, setFaults } from './support/faults';
import { operationsTable, projectPath } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

// The layout with the worst a person brings: a phone (390×844) and a laptop (1280×800), a branch with
// the longest name the API accepts, operations in the watch tray, and on the phone every operation of
// the project in progress (each Duration cell ticking with a visually-hidden " so far"). The page must stay as
// wide as the screen, the tray and dialogs on it, and nothing may cover a control.

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };
const headers = { Authorization: `Bearer ${E2E_API_KEY}`, Accept: 'application/json' };

interface Setup {
  project: ApiProject;
  branchName: string;
  branchId: string;
}

/** Sends a change, waiting out 423 while the project is busy (other specs may have left it busy). */
async function change(request: APIRequestContext, method: 'post' | 'delete', path: string, data?: unknown): Promise<unknown> {
  const response = await sendWhenNotBusy(() => request[method](`/api/v2${path}`, { headers, data }));
  expect([200, 201], `${method} ${path}: ${await response.text()}`).toContain(response.status());
  return response.json();
}

const longName = () => `phone-${Date.now().toString(36)}-`.padEnd(256, 'x');

async function personalProject(request: APIRequestContext): Promise<ApiProject> {
  const project = (await new ControlApi(request, E2E_API_KEY).projects()).find((p) => p.locked !== true);
  if (!project) throw new Error('the demo seed has no personal project that takes changes');
  return project;
}

/** A personal project with a new branch named with 256 characters, and all its operations read as in progress. */
async function setUp(request: APIRequestContext): Promise<Setup> {
  const project = await personalProject(request);
  // Every operation the console reads is in progress, so each Duration cell counts "so far".
  await setFaults(request, [{ fault: { type: 'unknown-values', status: 'running' }, method: 'GET', path: `/projects/${project.id}/operations/**` }]);
  const branchName = longName();
  const created = (await change(request, 'post', `/projects/${encodeURIComponent(project.id)}/branches`, {
    branch: { name: branchName },
    endpoints: [{ type: 'read_write' }],
  })) as { branch: { id: string } };
  return { project, branchName, branchId: created.branch.id };
}

async function tearDown(request: APIRequestContext, setup: Setup | undefined): Promise<void> {
  await clearFaults(request);
  if (setup) await change(request, 'delete', `/projects/${encodeURIComponent(setup.project.id)}/branches/${encodeURIComponent(setup.branchId)}`);
}

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** The element's box lies inside the viewport (it may need the page scrolled up or down, never sideways). */
async function expectWithinWidth(locator: Locator, width: number): Promise<void> {
  const box = await locator.boundingBox();
  expect(box, 'laid out').not.toBeNull();
  if (!box) return;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
}

async function expectOnScreen(locator: Locator, viewport: { width: number; height: number }): Promise<void> {
  await expectWithinWidth(locator, viewport.width);
  const box = await locator.boundingBox();
  if (!box) return;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
}

/**
 * Every control in view (links, buttons, fields) whose centre is not the control itself: something
 * covers it. Controls scrolled out of a scrolling box are out of view, not covered. A link that wraps is boxes on
 * two lines: the centre of its first box, not of the rectangle around both (which is the text between them).
 */
function coveredControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const covered: string[] = [];
    for (const control of document.querySelectorAll('a[href], button, select, input, textarea, summary')) {
      // The timeline's marks (SVG links) may overlap each other by design; the page's controls may not be covered.
      if (!(control instanceof HTMLElement) || !control.checkVisibility()) continue;
      const box = control.getClientRects()[0];
      if (!box || box.width < 2 || box.height < 2) continue;
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) continue;
      let clipped = false;
      for (let box = control.parentElement; box && !clipped; box = box.parentElement) {
        const style = getComputedStyle(box);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const r = box.getBoundingClientRect();
        clipped = x < r.left || x > r.right || y < r.top || y > r.bottom;
      }
      if (clipped) continue;
      const hit = document.elementFromPoint(x, y);
      if (!hit || !control.contains(hit)) {
        covered.push(
          `${control.tagName.toLowerCase()} "${(control.getAttribute('aria-label') ?? control.textContent).trim().slice(0, 40)}" under ${hit?.closest('[class]')?.getAttribute('class') ?? 'nothing'}`,
        );
      }
    }
    return covered;
  });
}

const tray = (page: Page) => page.getByRole('complementary', { name: 'Watched operations' });

test.describe('on a phone', () => {
  test.use({ viewport: PHONE });

  test('a project page with work in progress and a 256-character branch name fits the screen: tray, dialog and status in view, tables as cards', async ({
    page,
    context,
    request,
  }) => {
    test.setTimeout(60_000);
    await holdKey(context);
    let setup: Setup | undefined;
    try {
      setup = await setUp(request);
      const { project, branchName } = setup;
      await page.goto(projectPath(project.id));
      const table = operationsTable(page);
      // A Duration cell counting: its visually-hidden " so far" once widened the page to ~860 px.
      await expect(table.getByRole('cell', { name: / so far$/ }).first()).toBeVisible();
      const branchRow = page
        .getByRole('table', { name: 'Branches and computes' })
        .getByRole('row')
        .filter({ hasText: branchName.slice(0, 20) });
      await expect(branchRow).toBeVisible();

      // Watch the newest operation: the tray lists it, above the page's content.
      await table
        .getByRole('button', { name: /^Watch/ })
        .first()
        .click();
      await expect(tray(page).getByRole('listitem').first()).toBeVisible();
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await expectOnScreen(tray(page), PHONE);
      await expectOnScreen(page.getByRole('button', { name: 'Sign out' }), PHONE);

      // Each row is a card: its status and its actions in view without scrolling sideways.
      const firstRow = table.getByRole('row').nth(1);
      await expectWithinWidth(firstRow.getByRole('cell', { name: /^In progress/ }), PHONE.width);
      await expectWithinWidth(branchRow.getByRole('button', { name: /^Delete branch/ }), PHONE.width);
      // The long name is cut, and whole on hover.
      const name = branchRow.getByRole('rowheader').getByTitle(branchName, { exact: true });
      await expectWithinWidth(name, PHONE.width);
      await expectNoSeriousViolations(page);

      // A dialog about the long-named branch opens on screen, centred, its title cut to fit.
      await branchRow.getByRole('button', { name: /^Delete branch/ }).click();
      const dialog = page.getByRole('alertdialog', { name: `Delete branch “${branchName}”?` });
      await expect(dialog).toBeVisible();
      await expectOnScreen(dialog, PHONE);
      const box = await dialog.boundingBox();
      if (box) expect(Math.abs(box.x - (PHONE.width - box.x - box.width))).toBeLessThanOrEqual(2);
      expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);
      await expect(dialog.getByRole('heading')).toHaveAttribute('title', `Delete branch “${branchName}”?`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    } finally {
      await tearDown(request, setup);
    }
  });
});

test.describe('on a laptop', () => {
  test.use({ viewport: LAPTOP });

  test('right after a change the open tray covers no control, and a 256-character branch name does not widen the page', async ({ page, context, request }) => {
    test.setTimeout(60_000);
    await holdKey(context);
    let setup: Setup | undefined;
    try {
      const project = await personalProject(request);
      const branchName = longName();
      // The phone's test deletes its branch on the way out: the change below waits for that, not for 423's retries.
      await untilSettled(new ControlApi(request, E2E_API_KEY), project.id);
      await page.goto(projectPath(project.id));
      // The history as loaded: a fresh world's personal project may have no operation yet (its first are the change's).
      await expect(page.getByRole('region', { name: 'Operations' }).getByRole('status').first()).toBeVisible();

      // A change from the console, a branch with the longest name: its operations go to the tray, open.
      await page.getByRole('button', { name: 'Create branch', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Create branch' });
      await dialog.getByLabel('Branch name').fill(branchName);
      await dialog.getByRole('button', { name: 'Create branch' }).click();
      await expect(dialog).toBeHidden({ timeout: 20_000 });
      const branches = await new ControlApi(request, E2E_API_KEY).get<{ branches: { id: string; name: string }[] }>(
        `/projects/${encodeURIComponent(project.id)}/branches`,
      );
      const created = branches.branches.find((b) => b.name === branchName);
      if (!created) throw new Error('the branch was not created');
      setup = { project, branchName, branchId: created.id };
      await expect(tray(page).getByRole('heading', { level: 3, name: new RegExp(`^Create branch ${branchName}: `) })).toBeVisible();
      await expect(tray(page).getByRole('button', { name: 'Hide' })).toBeVisible();

      // Nothing covered at the top of the page, nor where the newest operations are.
      await page.mouse.move(0, 0);
      expect(await coveredControls(page)).toEqual([]);
      await operationsTable(page).evaluate((table) => table.scrollIntoView({ block: 'start' }));
      await expect(operationsTable(page).getByRole('row').last()).toBeInViewport();
      expect(await coveredControls(page)).toEqual([]);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(LAPTOP.width);
      await expect(page.getByRole('rowheader').getByTitle(branchName, { exact: true })).toBeVisible();
    } finally {
      await tearDown(request, setup);
    }
  });
});
