import { expect, test, type APIRequestContext } from '@playwright/test';
import { ARCHIVE_SOURCES_PATH, archiveSourcePath } from '../../src/api/archive-schemas';
import { expectNoSeriousViolations } from './support/axe';
import { ControlApi, projectCensus } from './support/api';
import { openNewestOperationOfBigProject, operationsTable, projectPath } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';
import { tourOfScreens, type TourStop } from './support/tour';

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

// With a kept key every screen shows what the archive adds (figures, insights, archived history); the key is kept
// for this block only and removed after it, so the lane's other specs meet a server that reads nothing on its own.
test.describe('signed in, with a kept key, light and dark', () => {
  test.describe.configure({ mode: 'serial' });
  let sourceId: string | undefined;

  test.beforeAll(async ({ playwright, baseURL }) => {
    const session = await signedInRequest(playwright.request, baseURL);
    const kept = await session.post(ARCHIVE_SOURCES_PATH);
    expect(kept.ok(), await kept.text()).toBe(true);
    sourceId = ((await kept.json()) as { source: { id: string } }).source.id;
    // The first kept key opens the store (PGlite's first start, seconds); then the collector lists the projects.
    await expect
      .poll(async () => ((await (await session.get(ARCHIVE_SOURCES_PATH)).json()) as { sources: { projects: number }[] }).sources[0]?.projects ?? 0, {
        timeout: 90_000,
      })
      .toBeGreaterThan(0);
    await session.dispose();
  });
  test.afterAll(async ({ playwright, baseURL }) => {
    const session = await signedInRequest(playwright.request, baseURL);
    if (sourceId) expect((await session.delete(archiveSourcePath(sourceId))).ok()).toBe(true);
    await session.dispose();
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`the projects, project, Activity, archive, insights and notifications pages in ${colorScheme}`, async ({ page, context, request }) => {
      // Seven pages while the collector backfills beside the lane's other server: over two minutes on a busy machine.
      test.setTimeout(300_000);
      await holdKey(context);
      await page.emulateMedia({ colorScheme });
      const tour = await tourOfScreens(new ControlApi(request, E2E_API_KEY));
      const stops: TourStop[] = [
        {
          name: 'projects',
          path: '/',
          ready: async (p) => {
            await expect(
              p
                .getByRole('table', { name: /^Projects/ })
                .getByRole('link')
                .first(),
            ).toBeVisible();
            await expect(p.getByRole('combobox', { name: 'Organization' })).toBeVisible();
          },
        },
        ...tour.filter((stop) => ['project', 'activity', 'archive', 'insights', 'project-insights'].includes(stop.name)),
        { name: 'notifications', path: '/settings/notifications', ready: (p) => expect(p.getByRole('textbox', { name: 'Webhook URL' })).toBeVisible() },
      ];
      for (const stop of stops) {
        await test.step(stop.name, async () => {
          await page.goto(stop.path);
          await stop.ready(page);
          await expectNoSeriousViolations(page);
        });
      }
    });
  }
});

/** A request context holding a session of the demo key, for the console's own routes. */
async function signedInRequest(
  factory: { newContext: (options: { baseURL?: string }) => Promise<APIRequestContext> },
  baseURL: string | undefined,
): Promise<APIRequestContext> {
  const session = await factory.newContext(baseURL ? { baseURL } : {});
  expect((await session.post('/session', { data: { key: E2E_API_KEY, remember: false } })).status()).toBe(200);
  return session;
}
