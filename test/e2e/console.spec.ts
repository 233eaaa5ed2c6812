import { expect, test, type APIRequestContext } from '@playwright/test';
import { ControlApi, expectedLabel, projectCensus, sendWhenNotBusy, type ApiOperation, type CountedProject } from './support/api';
import {
  actionName,
  compareWithApi,
  detailStatus,
  escapeRegExp,
  loadMoreToEnd,
  operationPath,
  operationsTable,
  pickOperation,
  projectPath,
  readOperationsTable,
  revealRow,
  showProjectInList,
} from './support/screens';
import { E2E_API_KEY, signInThroughKeyScreen } from './support/session';

const noProblems = { rows: expect.any(Number), duplicated: [], missing: [], unknown: [], firstOutOfOrder: null, wrongStatus: [] };

/** Loads every page of the table the way a person does: "Load more" until the button is gone. */
/** POST that waits out 423 (the project is busy with a running operation; safe to retry, docs/platform-api.md). */
async function createBranchWithCompute(request: APIRequestContext, projectId: string, name: string) {
  const path = `/api/v2/projects/${encodeURIComponent(projectId)}/branches`;
  const headers = { Authorization: `Bearer ${E2E_API_KEY}`, Accept: 'application/json' };
  const response = await sendWhenNotBusy(() => request.post(path, { headers, data: { branch: { name }, endpoints: [{ type: 'read_write' }] } }));
  expect(response.status(), `POST ${path}: ${await response.text()}`).toBe(201);
  return (await response.json()) as { branch: { id: string }; operations: ApiOperation[] };
}

function smallProject(small: CountedProject[]): CountedProject {
  const project = small[0];
  if (!project) throw new Error('the demo seed needs a project with a short history besides the big one');
  return project;
}

test('signs in, pages through the big project to its end, each operation once, newest first, and opens one', async ({ page, request }) => {
  // Twenty-odd pages loaded and the whole table read against the API: 26 s in CI, past the default 60 s beside a second CI run.
  test.setTimeout(150_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const { big } = await projectCensus(api);
  expect(big.operationCount, 'the demo seed has one project with a long history').toBeGreaterThanOrEqual(2_000);

  await page.goto('/');
  await signInThroughKeyScreen(page);
  const link = await showProjectInList(page, big);
  await expect(link).toHaveAttribute('href', projectPath(big.id));
  await link.click();
  await expect(page).toHaveURL(projectPath(big.id));
  await expect(page.getByRole('heading', { level: 1, name: big.name })).toBeVisible();

  await loadMoreToEnd(page);

  // Live activity may add or finish operations meanwhile (the table refreshes its newest page at
  // least every 30 s while anything loaded may still change): compare fresh walks until they agree.
  const table = operationsTable(page);
  let walked: ApiOperation[] = [];
  await expect(async () => {
    walked = await api.operations(big.id);
    expect(compareWithApi(await readOperationsTable(table), walked, expectedLabel)).toEqual({ ...noProblems, rows: walked.length });
  }).toPass({ timeout: 45_000, intervals: [1_000, 2_000, 5_000] });
  const created = walked.map((op) => Date.parse(op.created_at));
  expect(
    created.findIndex((t, i) => i > 0 && t > (created[i - 1] ?? t)),
    'the API walk is newest first',
  ).toBe(-1);

  // A row from a later page opens its own detail page.
  const target = pickOperation(walked, 150);
  const targetRow = await revealRow(table, walked.indexOf(target));
  await targetRow.locator(`a[href="${operationPath(big.id, target.id)}"]`).click();
  await expect(page).toHaveURL(operationPath(big.id, target.id));
  await expect(page.getByRole('heading', { level: 1, name: actionName(target.action) })).toBeVisible();
  await expect(page.getByRole('main').getByText(target.id, { exact: true })).toBeVisible();
  const now = await api.operation(big.id, target.id);
  await expect(detailStatus(page)).toHaveText(new RegExp(`${escapeRegExp(expectedLabel(now.status))}$`));
});

test('a live operation turns OK in place, without a reload, and the tab title follows', async ({ page, request }) => {
  test.setTimeout(120_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const project = smallProject((await projectCensus(api)).small);

  await page.goto('/');
  await signInThroughKeyScreen(page);

  // About 2% of live operations fail a first attempt and are retried later, polled slowly (30 s):
  // such a run must show Error or keep waiting (checked against the API), and a fresh branch is watched.
  const sameDocument = () => page.evaluate(() => (window as { e2eSameDocument?: boolean }).e2eSameDocument === true);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const created = await createBranchWithCompute(request, project.id, `e2e-live-${Date.now()}`);
    const op = created.operations.find((o) => o.action === 'start_compute') ?? created.operations[0];
    if (!op) throw new Error('creating a branch started no operation');
    const retried = async () => {
      const now = await Promise.all(created.operations.map((o) => api.operation(project.id, o.id)));
      return now.some((o) => o.failures_count > 0);
    };

    await page.goto(operationPath(project.id, op.id));
    const status = detailStatus(page);
    await expect(status).toHaveText(/Scheduling$|In progress$/);
    await expect(page).toHaveTitle(/Scheduling|In progress/);
    await page.evaluate(() => void ((window as { e2eSameDocument?: boolean }).e2eSameDocument = true));

    try {
      await expect(status).toHaveText(/OK$/, { timeout: 30_000 });
    } catch (error) {
      if (await retried()) continue;
      throw error;
    }
    await expect(page).toHaveTitle(/\bOK\b/);
    expect(await sameDocument(), 'the page was not reloaded').toBe(true);
    expect((await api.operation(project.id, op.id)).status).toBe('finished');
    return;
  }
  throw new Error('three live branch creations in a row had a failed first attempt');
});

test('a key revoked mid-session sends the person to the key screen, and signing in again returns them', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const { small } = await projectCensus(api);
  const project = smallProject(small);
  const [op] = await api.newestOperations(project.id, 1);
  if (!op) throw new Error('the small project has no operation');
  const key = await api.post<{ id: number; key: string }>('/api_keys', { key_name: `e2e-revoked-${Date.now()}` });

  await page.goto('/');
  await signInThroughKeyScreen(page, key.key);
  await (await showProjectInList(page, project)).click();
  await expect(page.getByRole('heading', { level: 1, name: project.name })).toBeVisible();
  // Aimed at once the branches above the history are in: their placeholder has two rows, and a project
  // with one branch moves the history up by a row when they arrive.
  await expect(page.getByRole('table', { name: 'Branches and computes' })).toBeVisible();
  await operationsTable(page)
    .locator(`a[href="${operationPath(project.id, op.id)}"]`)
    .click();
  const here = operationPath(project.id, op.id);
  await expect(page).toHaveURL(here);
  await expect(page.getByRole('heading', { level: 1, name: actionName(op.action) })).toBeVisible();

  await api.delete(`/api_keys/${key.id}`);
  // The operation has ended (there is nothing to check now): the next request is the reload's.
  await page.reload();

  await expect(page.getByRole('alert')).toContainText(/rejected/i);
  await expect(page.getByLabel(/API key/)).toBeVisible();
  await expect(page).toHaveURL(here);

  await signInThroughKeyScreen(page, E2E_API_KEY);
  await expect(page).toHaveURL(here);
  await expect(page.getByRole('heading', { level: 1, name: actionName(op.action) })).toBeVisible();
  await expect(page.getByRole('main').getByText(op.id, { exact: true })).toBeVisible();
});

test('deep links to all four routes work on reload', async ({ page, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const { big } = await projectCensus(api);
  const [op] = await api.newestOperations(big.id, 1);
  if (!op) throw new Error('the big project has no operation');
  const personal = (await api.allProjects()).find((p) => p.organization === null);
  const [someKey] = await api.get<{ name: string }[]>('/api_keys');

  const routes: { path: string; shows: () => Promise<void> }[] = [
    {
      path: '/',
      shows: async () => {
        await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
        if (personal) await expect(page.getByRole('link', { name: personal.name, exact: true })).toBeVisible();
      },
    },
    {
      path: projectPath(big.id),
      shows: async () => {
        await expect(page.getByRole('heading', { level: 1, name: big.name })).toBeVisible();
        await expect(operationsTable(page).locator('tbody tr').first()).toBeVisible();
      },
    },
    {
      path: operationPath(big.id, op.id),
      shows: async () => {
        await expect(page.getByRole('heading', { level: 1, name: actionName(op.action) })).toBeVisible();
        await expect(page.getByRole('main').getByText(op.id, { exact: true })).toBeVisible();
      },
    },
    {
      path: '/settings/api-keys',
      shows: async () => {
        await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
        if (someKey) await expect(page.getByRole('main').getByText(someKey.name, { exact: true }).first()).toBeVisible();
      },
    },
  ];

  await page.goto('/');
  await signInThroughKeyScreen(page);
  for (const route of routes) {
    await page.goto(route.path);
    await route.shows();
    await page.reload();
    await expect(page).toHaveURL(route.path);
    await route.shows();
  }
});
