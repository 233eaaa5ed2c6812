import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { webhookDeliveriesPath, webhookPath, WEBHOOKS_PATH } from '../../src/api/notification-schemas';
import { ControlApi, HUGE_HISTORY, scaleProject, sendWhenNotBusy, type ApiOperation } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { clearFaults, recordApiTraffic, setFaults, type ApiExchange } from './support/faults';
import { layoutProblems, type LayoutProblem } from './support/layout';
import { failuresOnNormalPath } from './support/normal-path';
import { operationsTable, projectPath } from './support/screens';
import { E2E_API_KEY, holdKey, signInThroughKeyScreen } from './support/session';
import { tourOfScreens, type TourStop } from './support/tour';

// The history archive end to end (docs/archive.md), against the lane's own server: Keep history with the signed-in
// key, the collector backfills every project (the scale project too), a filter is answered from the
// store in one request, an operation the API stops listing stays on the page, and Activity costs the API no
// more with five people watching than with one. While the key is kept (and a webhook has a delivery), every
// screen is measured at three widths and checked by axe in dark mode. The source is removed at the end, so the
// lane's other specs meet a server that reads nothing on its own.
test.describe.configure({ mode: 'serial' });

const sourceRow = (page: Page) => page.getByRole('table', { name: 'Keys the archive reads with' }).getByRole('row', { name: /Demo User/ });

/** The page's list reads of one project's history (`/api/v2/projects/:id/operations`, not a single operation's read). */
const historyReads = (log: readonly ApiExchange[], projectId: string) =>
  log.filter((e) => new URL(e.url).pathname === `/api/v2/projects/${projectId}/operations`);

test(`Keep history: the key is kept, every project backfilled, and a filter over ${HUGE_HISTORY.toLocaleString('en')} operations comes from the archive in one request`, async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const huge = (await scaleProject(api)).id;
  const failed = (await api.operations(huge)).filter((op) => op.status === 'failed');
  expect(failed.length).toBeGreaterThan(0);

  await page.goto('/settings/archive');
  await signInThroughKeyScreen(page);
  await expect(page.getByRole('heading', { level: 1, name: 'History archive' })).toBeVisible();
  await expectNoSeriousViolations(page);
  await page.getByRole('button', { name: 'Keep history' }).click();
  // The store opened at start, in the background (docs/architecture.md, "The store"): the key is kept once it has,
  // "Keeping…" meanwhile, which may already be over by the time it is looked for (fc35).
  await expect(sourceRow(page)).toBeVisible({ timeout: 60_000 });
  // Then HUGE_HISTORY + 2,700 operations in pages of 1,000.
  await expect(sourceRow(page).getByText('Following')).toBeVisible({ timeout: 120_000 });
  await expect(page.getByRole('button', { name: 'Keep history' })).toBeDisabled();
  await expectNoSeriousViolations(page);

  const traffic = recordApiTraffic(page);
  await page.goto(`/projects/${huge}?status=failed`);
  await expect(page.getByText(`From the history archive, over the whole record of this project: ${failed.length} matches.`)).toBeVisible();
  const table = page.getByRole('table', { name: /operations/i });
  await expect(table).toHaveAttribute('aria-rowcount', String(failed.length + 1));
  await expect(table.locator('tbody tr').first().getByRole('link').first()).toHaveAttribute('href', new RegExp(`/operations/${failed[0]?.id ?? 'none'}$`));
  // Answered by the store: no list read of this project's history went to the API for the filter.
  expect(historyReads(traffic, huge).filter((e) => new URL(e.url).searchParams.has('cursor'))).toEqual([]);
});

test('the normal path with a kept key: no console error, no failed or refused request of the console’s own', async ({ browser, baseURL }) => {
  test.setTimeout(90_000);
  expect(await failuresOnNormalPath(browser, baseURL)).toEqual([]);
});

test('an operation the API stops listing stays in the history, marked as kept by the archive', async ({ page, request, context }) => {
  test.setTimeout(120_000);
  await holdKey(context);
  const api = new ControlApi(request, E2E_API_KEY);
  const projects = await api.allProjects();
  const small = projects.find((p) => p.name === 'blog-backend') ?? projects[0];
  if (!small) throw new Error('no project');
  const oldest: ApiOperation | undefined = (await api.operations(small.id)).at(-1);
  if (!oldest) throw new Error('an empty project');
  await setFaults(request, [{ path: `/projects/${small.id}/operations`, fault: { type: 'hide-operations', ids: [oldest.id] } }]);
  try {
    // The API no longer lists it (as after its 6 months)…
    expect((await api.operations(small.id)).map((op) => op.id)).not.toContain(oldest.id);
    // …and the archive notices at its next whole read of the project (ARCHIVE_FULL_READ_MS on the test server).
    const row = page
      .getByRole('table', { name: /operations/i })
      .getByRole('row')
      .filter({ has: page.locator(`a[href$="/operations/${oldest.id}"]`) });
    await expect(async () => {
      await page.goto(`/projects/${small.id}?status=${oldest.status}`);
      await expect(row.getByText('Kept by the archive')).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 90_000 });
  } finally {
    await clearFaults(request);
  }
});

test('the unfiltered history goes on past the API’s end with what the archive kept, in the platform’s order', async ({ page, request, context }) => {
  test.setTimeout(120_000);
  await holdKey(context);
  const api = new ControlApi(request, E2E_API_KEY);
  const big = (await api.allProjects()).find((p) => p.name === 'acme-analytics-prod');
  if (!big) throw new Error('no acme-analytics-prod in the demo world');
  const platform = (await api.operations(big.id)).map((op) => op.id);
  // The API drops its 300 oldest, which the archive has read (as the platform's retention would).
  const dropped = platform.slice(-300);
  await setFaults(request, [{ path: `/projects/${big.id}/operations`, fault: { type: 'hide-operations', ids: dropped } }]);
  try {
    expect((await api.operations(big.id)).length).toBeLessThanOrEqual(platform.length - 300 + 5);
    await page.goto(projectPath(big.id));
    // Everything, as "Export all matches" loads it into the page: the API's list, then what the archive kept.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export all matches as NDJSON' }).click()]);
    const exported = (await readFile(await download.path(), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    // Operations that began since the count come first; then the platform's whole list, in its order, each once.
    expect(exported.slice(-platform.length)).toEqual(platform);
    expect(new Set(exported).size).toBe(exported.length);
    // The table holds the same, and ends with the kept ones, each marked.
    const table = operationsTable(page);
    await expect(table).toHaveAttribute('aria-rowcount', String(exported.length + 1));
    const last = table.locator('tbody tr').filter({ has: page.locator(`a[href$="/operations/${dropped.at(-1) ?? ''}"]`) });
    // To the end of the page, again while the rows drawn on the way make it longer.
    await expect(async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await expect(last.getByText('Kept by the archive')).toBeVisible({ timeout: 1_000 });
    }).toPass();
  } finally {
    await clearFaults(request);
  }
});

/** Five people, each in a browser profile of their own, signed in with the key and on /activity. */
async function viewers(browser: Browser, baseURL: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const context = await browser.newContext({ baseURL });
      await holdKey(context);
      const page = await context.newPage();
      const traffic = recordApiTraffic(page);
      await page.goto('/activity');
      // Every project from the archive (the kept key is followed): the page says so before any row.
      await expect(page.getByText(/no API request spent on them/)).toBeVisible({ timeout: 20_000 });
      return { context, page, traffic };
    }),
  );
}

test('Activity with five people watching costs the API no more than with one', async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  if (!baseURL) throw new Error('baseURL is not set');
  const WINDOW_MS = 6_000;
  const sentIn = (log: readonly ApiExchange[], from: number) => log.filter((e) => e.sentAt >= from && e.sentAt < from + WINDOW_MS).length;

  const [alone] = await viewers(browser, baseURL, 1);
  if (!alone) throw new Error('no viewer');
  const soloFrom = Date.now();
  // wall-clock: requests in a window of real time are what the API's per-minute limit counts.
  await alone.page.waitForTimeout(WINDOW_MS);
  const solo = sentIn(alone.traffic, soloFrom);
  await alone.context.close();

  const five = await viewers(browser, baseURL, 5);
  const groupFrom = Date.now();
  // wall-clock: the same window with five people.
  await five[0]?.page.waitForTimeout(WINDOW_MS);
  const group = five.reduce((sum, viewer) => sum + sentIn(viewer.traffic, groupFrom), 0);
  await Promise.all(five.map((viewer) => viewer.context.close()));
  expect(group, `API requests from five viewers in ${WINDOW_MS} ms (one viewer: ${solo})`).toBeLessThanOrEqual(solo);
});

test.describe('every screen with its data', () => {
  let webhookId = '';
  // A webhook to a closed port on loopback, for what finishes in one quiet project: a branch made there is an
  // event whose delivery fails and waits to be retried, so the log has a row with its buttons.
  test.beforeAll(async ({ playwright, baseURL, request }) => {
    test.setTimeout(90_000);
    const project = (await new ControlApi(request, E2E_API_KEY).allProjects()).find((p) => p.name === 'blog-backend');
    if (!project) throw new Error('the demo seed has no blog-backend project');
    const session = await signedInRequest(playwright.request, baseURL);
    const created = await session.post(WEBHOOKS_PATH, {
      data: {
        url: 'http://127.0.0.1:9/ops-console/every-screen',
        format: 'json',
        scope: { kind: 'project', projectId: project.id },
        events: ['operation.finished'],
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    webhookId = ((await created.json()) as { webhook: { id: string } }).webhook.id;
    const branch = await sendWhenNotBusy(() =>
      request.post(`/api/v2/projects/${project.id}/branches`, { headers: { Authorization: `Bearer ${E2E_API_KEY}` }, data: {} }),
    );
    expect(branch.status(), await branch.text()).toBe(201);
    // The collector sees it finish, and the delivery loop tries the event once.
    await expect
      .poll(async () => ((await (await session.get(webhookDeliveriesPath(webhookId))).json()) as { deliveries: unknown[] }).deliveries.length, {
        timeout: 60_000,
      })
      .toBeGreaterThan(0);
    await session.dispose();
  });
  test.afterAll(async ({ playwright, baseURL }) => {
    const session = await signedInRequest(playwright.request, baseURL);
    if (webhookId) expect((await session.delete(webhookPath(webhookId))).ok()).toBe(true);
    await session.dispose();
  });

  test('from 1024 to 1600 px and at 390 px no overflow and no sliver on the projects, archive, notifications, project and Activity pages', async ({
    page,
    context,
    request,
  }) => {
    test.setTimeout(150_000);
    await holdKey(context);
    const problems: (LayoutProblem & { screen: string; width: number })[] = [];
    const api = new ControlApi(request, E2E_API_KEY);
    // The organization with the busiest projects: its Operations column is the widest the projects table gets.
    const org = (await api.allProjects()).find((p) => p.name === 'acme-analytics-prod')?.organization;
    const projects = projectsStop(org ? `/?org=${org.id}` : '/');
    // One load per screen; each width is the same page resized (the layout is CSS alone).
    for (const stop of [projects, ...(await tourOfScreens(api))]) {
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.goto(stop.path);
      await stop.ready(page);
      // A delete, a removal or a revocation asks first: its button opens a dialog, and nothing is gone until confirmed.
      const destructive = page
        .getByRole('main')
        .getByRole('button', { name: /^(Delete|Remove|Revoke)\b/ })
        .first();
      if (await destructive.isVisible()) {
        await destructive.click();
        const dialog = page.getByRole('alertdialog').or(page.getByRole('dialog'));
        await expect(dialog, `${stop.name}: ${await destructive.textContent()} asks first`).toBeVisible();
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await expect(dialog).toHaveCount(0);
      }
      for (const width of [1600, 1400, 1280, 1024, 390]) {
        await page.setViewportSize({ width, height: 900 });
        problems.push(...(await layoutProblems(page)).map((problem) => ({ ...problem, screen: stop.name, width })));
      }
    }
    expect(problems).toEqual([]);
  });

  test('axe clean in light and dark on every screen, the projects list included', async ({ page, context, request }) => {
    test.setTimeout(240_000);
    await holdKey(context);
    const projects = projectsStop('/');
    const stops = [projects, ...(await tourOfScreens(new ControlApi(request, E2E_API_KEY)))];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const stop of stops) {
        await test.step(`${stop.name} in ${colorScheme}`, async () => {
          await page.goto(stop.path);
          await stop.ready(page);
          await expectNoSeriousViolations(page);
        });
      }
    }
  });
});

/** The projects list as a tour stop: ready once the archive's figures are in its Operations column. */
function projectsStop(path: string): TourStop {
  return {
    name: 'projects',
    path,
    ready: (p) =>
      expect(
        p
          .getByRole('table', { name: /^Projects/ })
          .getByText(/operations/)
          .first(),
      ).toBeVisible(),
  };
}

/** A request context holding a session of the demo key, for the console's own routes. */
async function signedInRequest(
  factory: { newContext: (options: { baseURL?: string }) => Promise<APIRequestContext> },
  baseURL: string | undefined,
): Promise<APIRequestContext> {
  const session = await factory.newContext(baseURL ? { baseURL } : {});
  expect((await session.post('/session', { data: { key: E2E_API_KEY, remember: false } })).status()).toBe(200);
  return session;
}

test('Remove stops keeping the key: the source is gone and Keep history is offered again', async ({ page, context }) => {
  await holdKey(context);
  await page.goto('/settings/archive');
  await sourceRow(page).getByRole('button', { name: 'Remove' }).click();
  const dialog = page.getByRole('alertdialog');
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(sourceRow(page)).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Keep history' })).toBeEnabled();
});
