import { expect, test, type Page } from '@playwright/test';
import { ControlApi, expectedLabel, projectCensus, type ApiOperation, type CountedProject } from './support/api';
import { clearFaults, collectPageErrors, recordApiTraffic, returnToTab, setFaults, type ApiExchange, type FaultRule } from './support/faults';
import { compareWithApi, loadMoreToEnd, operationsTable, projectPath, readOperationsTable } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';
import { OPERATIONS_PAGE_SIZE } from '../../src/api/operations';

// The console against a struggling API: each fault is set through the simulator's control route, and
// cleared after every test, because the other specs share the server.

const noProblems = { rows: expect.any(Number), duplicated: [], missing: [], unknown: [], firstOutOfOrder: null, wrongStatus: [] };
const OPERATIONS_LIST = '/projects/*/operations';
/** The poll interval the tests choose (the console's smallest), kept like a person's choice. */
const POLL_INTERVAL_MS = 2_000;

let errors: string[];
let traffic: ApiExchange[];
let project: CountedProject;
let big: CountedProject;
/** A history of a few pages: the shortest the census finds past two pages (the big one if none is). */
let paged: CountedProject;

test.beforeAll(async ({ request }) => {
  const census = await projectCensus(new ControlApi(request, E2E_API_KEY));
  const first = census.small[0];
  if (!first) throw new Error('the demo seed needs a project with a short history');
  project = first;
  big = census.big;
  paged =
    [...census.small, census.big].filter((p) => p.operationCount > 2 * OPERATIONS_PAGE_SIZE).sort((a, b) => a.operationCount - b.operationCount)[0] ?? big;
});

test.beforeEach(async ({ page, context }) => {
  await holdKey(context);
  await context.addInitScript((ms) => window.localStorage.setItem('ops-console.poll-interval-ms', String(ms)), POLL_INTERVAL_MS);
  errors = collectPageErrors(page);
  traffic = recordApiTraffic(page);
});

test.afterEach(async ({ request }) => {
  await clearFaults(request);
  expect(errors, 'uncaught errors or unexpected console errors').toEqual([]);
});

function notices(page: Page) {
  return page.locator('.notices');
}

const isOperationsList = (entry: ApiExchange) => /\/api\/v2\/projects\/[^/]+\/operations\?/.test(entry.url) && entry.method === 'GET';

/**
 * The table against the API's own list, until they agree: the platform may add an operation meanwhile, which a page
 * with nothing in progress finds at its next check, up to 30 s later (docs/console.md: "checks for new operations every 30 s").
 */
async function expectTableMatchesApi(page: Page, api: ControlApi, projectId: string): Promise<void> {
  const table = operationsTable(page);
  await expect(async () => {
    const walked: ApiOperation[] = await api.operations(projectId);
    expect(compareWithApi(await readOperationsTable(table), walked, expectedLabel)).toEqual({ ...noProblems, rows: walked.length });
  }).toPass({ timeout: 60_000 });
}

/** Opens the small project's page and waits for its table, as it was before any fault. */
async function openProject(page: Page, api: ControlApi): Promise<string[]> {
  await page.goto(projectPath(project.id));
  await expect(operationsTable(page).locator('tbody tr').first()).toBeVisible();
  await expectTableMatchesApi(page, api, project.id);
  return (await readOperationsTable(operationsTable(page))).map((row) => row.id);
}

/** Sets the faults, then has the page refresh its operations (as when the person returns to the tab). */
async function faultTheRefresh(page: Page, request: Parameters<typeof setFaults>[0], rules: FaultRule[]): Promise<number> {
  await setFaults(request, rules);
  const since = Date.now();
  await expect
    .poll(
      async () => {
        await returnToTab(page);
        return traffic.some((entry) => isOperationsList(entry) && entry.sentAt > since);
      },
      { timeout: 15_000, intervals: [500] },
    )
    .toBe(true);
  return since;
}

function operationsRequestsSince(since: number): ApiExchange[] {
  return traffic.filter((entry) => isOperationsList(entry) && entry.sentAt >= since);
}

async function expectSameRows(page: Page, ids: string[]): Promise<void> {
  expect((await readOperationsTable(operationsTable(page))).map((row) => row.id)).toEqual(ids);
}

test('a busy server (503) on refresh: says so, keeps the table, retries with backoff, recovers by itself', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const before = await openProject(page, api);
  const since = await faultTheRefresh(page, request, [{ fault: { type: 'status', status: 503 }, method: 'GET', path: OPERATIONS_LIST }]);

  await expect(notices(page)).toContainText(/Could not refresh: The server is busy \(503\)\. Showing the last data received; retrying in \d+ s\./);
  await expect(notices(page)).toContainText(/request id [0-9a-f-]{36}/);
  // A second try, later than the first: the console retries by itself.
  await expect.poll(() => operationsRequestsSince(since).filter((e) => e.status === 503).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  const tries = operationsRequestsSince(since).filter((e) => e.status === 503);
  expect(tries[1]!.sentAt - tries[0]!.answeredAt!).toBeGreaterThanOrEqual(900);
  await expectSameRows(page, before);

  await clearFaults(request);
  await expect(notices(page)).toBeEmpty({ timeout: 30_000 });
  await expectTableMatchesApi(page, api, project.id);
});

test('rate limited (429): says when it retries, and never retries before Retry-After', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const before = await openProject(page, api);
  const since = await faultTheRefresh(page, request, [{ fault: { type: 'rate-limit', retryAfterSeconds: 3 }, method: 'GET', path: OPERATIONS_LIST }]);

  await expect(notices(page)).toContainText(/Rate limited by the API \(429\)\. Showing the last data received; retrying in 3 s\./);
  await expect.poll(() => operationsRequestsSince(since).filter((e) => e.status === 429).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
  const limited = operationsRequestsSince(since).filter((e) => e.answeredAt !== undefined);
  for (let i = 1; i < limited.length; i++) {
    // Every request after a 429 waits out its Retry-After (3 s, less the few ms between the browser and this process).
    expect(limited[i]!.sentAt - limited[i - 1]!.answeredAt!, `request ${i} after a 429`).toBeGreaterThanOrEqual(3_000 - 50);
  }
  await expectSameRows(page, before);

  await clearFaults(request);
  await expect(notices(page)).toBeEmpty({ timeout: 15_000 });
  await expectTableMatchesApi(page, api, project.id);
});

for (const [name, fault] of [
  ['malformed JSON', { type: 'malformed-json' }],
  ['a body that breaks the schema', { type: 'schema-break' }],
] as const) {
  test(`${name}: names the unreadable response with its request id, keeps the table, recovers`, async ({ page, request }) => {
    const api = new ControlApi(request, E2E_API_KEY);
    const before = await openProject(page, api);
    await faultTheRefresh(page, request, [{ fault, method: 'GET', path: OPERATIONS_LIST }]);

    await expect(notices(page)).toContainText(
      /Could not refresh: The API sent a response the console could not read\. Showing the last data received; retrying in \d+ s\. \(request id [0-9a-f-]{36}\)/,
    );
    await expectSameRows(page, before);

    await clearFaults(request);
    await expect(notices(page)).toBeEmpty({ timeout: 30_000 });
    await expectTableMatchesApi(page, api, project.id);
  });
}

test('a dropped connection: says the API could not be reached, keeps the table, recovers', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const before = await openProject(page, api);
  const since = await faultTheRefresh(page, request, [{ fault: { type: 'drop-connection' }, method: 'GET', path: OPERATIONS_LIST }]);

  await expect(notices(page)).toContainText(/Could not refresh: Could not reach the API\. Showing the last data received; retrying in \d+ s\./);
  expect(operationsRequestsSince(since).some((e) => e.failed)).toBe(true);
  await expectSameRows(page, before);

  await clearFaults(request);
  await expect(notices(page)).toBeEmpty({ timeout: 30_000 });
  await expectTableMatchesApi(page, api, project.id);
});

test('a busy server on first load: says so inline (once, not again in the notices) with a Retry while it waits, then shows the page once the API answers', async ({
  page,
  request,
}) => {
  const api = new ControlApi(request, E2E_API_KEY);
  await setFaults(request, [{ fault: { type: 'status', status: 503 }, method: 'GET', path: '/projects/**' }]);
  await page.goto(projectPath(project.id));

  // Inline where the table will be: what failed, when it tries again, and a Retry for now.
  const failure = page.getByRole('alert').filter({ hasText: 'Could not load the operations.' });
  await expect(failure).toContainText(/Retrying in \d+ s\./);
  await expect(failure.getByRole('button', { name: 'Retry' })).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'Could not load the branches and computes.' })).toContainText(/Retrying in \d+ s\./);
  // Every read of the page says it where its content would be: the page-wide notices stay empty.
  await expect(page.getByText(/Project details unavailable/)).toBeVisible();
  await expect(notices(page)).toBeEmpty();

  await clearFaults(request);
  await expect(page.getByRole('heading', { level: 1, name: project.name })).toBeVisible({ timeout: 30_000 });
  await expectTableMatchesApi(page, api, project.id);
  await expect(notices(page)).toBeEmpty();
});

// A history of several pages, not the big one's twenty: each page's read fails as often, and is retried with the
// production policy's waits, whatever the history's length.
test('a share of reads fail with 500: a history of several pages still loads whole, each operation once', async ({ page, request }) => {
  test.setTimeout(180_000);
  const api = new ControlApi(request, E2E_API_KEY);
  await setFaults(request, [{ fault: { type: 'status', status: 500 }, method: 'GET', path: OPERATIONS_LIST, share: 0.3 }]);
  await page.goto(projectPath(paged.id));

  await expect(operationsTable(page).locator('tbody tr').first()).toBeVisible({ timeout: 60_000 });
  await loadMoreToEnd(page);
  expect(traffic.filter((e) => e.status === 500).length, 'the fault was in force').toBeGreaterThan(0);

  await clearFaults(request);
  await expectTableMatchesApi(page, api, paged.id);
});

test('slow answers (latency): the page says it is loading, then shows the table, with no error', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  await setFaults(request, [{ fault: { type: 'latency', ms: 1_500 }, method: 'GET', path: OPERATIONS_LIST }]);
  await page.goto(projectPath(project.id));

  await expect(page.getByText('Loading operations…')).toBeVisible();
  await expect(operationsTable(page).locator('tbody tr').first()).toBeVisible({ timeout: 15_000 });
  await expectTableMatchesApi(page, api, project.id);
  await expect(notices(page)).toBeEmpty();
  expect(traffic.some((e) => e.failed || (e.status ?? 200) >= 400)).toBe(false);
});

test('statuses and actions the console does not know are shown raw, and real ones return when the API sends them', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  await setFaults(request, [{ fault: { type: 'unknown-values', status: 'quarantined', action: 'rebalance_storage' }, method: 'GET', path: OPERATIONS_LIST }]);
  await page.goto(projectPath(project.id));

  const table = operationsTable(page);
  await expect(table.locator('tbody tr').first()).toBeVisible();
  // The project's own availability checks may have added an operation since the census: count now.
  const count = (await api.operations(project.id)).length;
  await expect(table.locator('tbody tr')).toHaveCount(count);
  const shown = await readOperationsTable(table);
  expect(shown.length).toBe(count);
  expect(new Set(shown.map((row) => row.status))).toEqual(new Set(['quarantined']));
  await expect(table.getByRole('link', { name: 'Rebalance storage' })).toHaveCount(shown.length);
  await expect(notices(page)).toBeEmpty();

  // An unknown status may be a new in-flight state: the console keeps polling, so the real values come back by themselves.
  await clearFaults(request);
  await expectTableMatchesApi(page, api, project.id);
});
