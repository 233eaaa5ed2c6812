import { expect, test, type Locator, type Page } from '@playwright/test';
import { ControlApi, sendWhenNotBusy } from './support/api';
import { clearFaults, setFaults } from './support/faults';
import { E2E_API_KEY, holdKey } from './support/session';

// Nothing a person may be pointing at moves when late data arrives: each page is reached the way a person does
// (a link within the console, so its data comes after its first render), with the late answers held back a
// moment, and the place of a row or link is measured before and after they land.

const DELAY_MS = 2_000;
/** What counts as not moving: sub-pixel rounding and a border. */
const STILL_PX = 2;

async function placeOf(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (!box) throw new Error('not on screen');
  return { x: box.x, y: box.y };
}

/** Answers to requests matching `pattern` are held back DELAY_MS; resolves once the first of them has landed and the page has drawn it. */
async function holdBack(page: Page, pattern: RegExp): Promise<() => Promise<void>> {
  let landed: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (landed = resolve));
  await page.route(pattern, async (route) => {
    const response = await route.fetch();
    await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
    await route.fulfill({ response });
    landed();
  });
  return async () => {
    await done;
    // Two frames: React commits, the browser lays out.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  };
}

test.beforeEach(async ({ context }) => {
  await holdKey(context);
});

test('the projects table stays put when the Organization select and the archive’s Operations column arrive', async ({ page }) => {
  await page.goto('/settings/notifications');
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  const organizations = await holdBack(page, /\/api\/v2\/users\/me\/organizations/);
  const archive = await holdBack(page, /\/archive\/projects(\?|$)/);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();

  const table = page.getByRole('table', { name: /^Projects/ });
  const firstLink = table.getByRole('link').first();
  const created = table.getByRole('columnheader', { name: 'Created' });
  await expect(firstLink).toBeVisible();
  const before = { link: await placeOf(firstLink), created: await placeOf(created) };
  await organizations();
  await archive();
  await expect(page.getByRole('combobox', { name: 'Organization' })).toBeVisible();
  expect(Math.abs((await placeOf(firstLink)).y - before.link.y)).toBeLessThanOrEqual(STILL_PX);
  expect(Math.abs((await placeOf(created)).x - before.created.x)).toBeLessThanOrEqual(STILL_PX);
});

test('the branch rows stay put when the history arrives with work in progress (the busy banner)', async ({ page, request }) => {
  test.setTimeout(90_000);
  const project = (await new ControlApi(request, E2E_API_KEY).allProjects()).find((p) => p.name === 'scratchpad');
  if (!project) throw new Error('the seed has no scratchpad project');
  const created = await sendWhenNotBusy(() =>
    request.post(`/api/v2/projects/${project.id}/branches`, { headers: { Authorization: `Bearer ${E2E_API_KEY}` }, data: {} }),
  );
  const operationId = ((await created.json()) as { operations: { id: string }[] }).operations[0]?.id ?? '';
  // Held in flight while the page is measured.
  await setFaults(request, [{ path: `/projects/${project.id}/**`, fault: { type: 'unknown-values', status: 'running', ids: [operationId] } }]);
  try {
    await page.goto('/');
    const history = await holdBack(page, new RegExp(`/api/v2/projects/${project.id}/operations(\\?|$)`));
    await page.getByRole('link', { name: 'scratchpad', exact: true }).click();

    const firstBranch = page.getByRole('table', { name: 'Branches and computes' }).getByRole('row').nth(1);
    await expect(firstBranch).toBeVisible();
    const before = await placeOf(firstBranch);
    await history();
    await expect(page.getByText(/running in this project/)).toBeVisible();
    expect(Math.abs((await placeOf(firstBranch)).y - before.y)).toBeLessThanOrEqual(STILL_PX);
  } finally {
    await clearFaults(request);
  }
});
