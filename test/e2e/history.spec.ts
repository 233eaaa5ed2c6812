import { execFile } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from './support/axe';
import { ControlApi, expectedLabel, projectCensus, type ApiOperation, type CountedProject } from './support/api';
import { compareWithApi, operationPath, operationsTable, projectPath, readOperationsTable } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

// The history in the browser, on `npm start`: a filtered deep link finds every match in the whole history
// (the console walks it by itself), the timeline's marks are links, and the keyboard goes from / to an
// opened operation.

let big: CountedProject;
let history: ApiOperation[];

test.beforeAll(async ({ request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  ({ big } = await projectCensus(api));
  history = await api.operations(big.id);
});

test.beforeEach(async ({ context }) => {
  await holdKey(context);
});

/** Operations that ended in error or were cancelled: only the seeded history has them, so they cannot change under the test. */
const SETTLED_FILTER = 'status=error,cancelled';
const settledMatches = () => history.filter((op) => op.status === 'error' || op.status === 'cancelled');

async function searchedToTheEnd(page: Page): Promise<void> {
  await expect(page.getByRole('status').filter({ hasText: /^Searched the whole history/ })).toBeVisible({ timeout: 30_000 });
}

test('a filtered deep link finds every match in the whole history, once each, newest first; a filter chosen with two clicks (no modifier key) changes the address and the table', async ({
  page,
}) => {
  const expected = settledMatches();
  expect(history.length).toBeGreaterThan(2_000);
  expect(expected.length).toBeGreaterThan(10);
  const requests: URL[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === `/api/v2/projects/${big.id}/operations`) requests.push(url);
  });

  await page.goto(`${projectPath(big.id)}?${SETTLED_FILTER}`);
  await searchedToTheEnd(page);
  await expect(page.getByRole('status').filter({ hasText: /^Searched the whole history/ })).toContainText(`· ${expected.length} matches`);
  const shown = await readOperationsTable(operationsTable(page));
  const diff = compareWithApi(shown, expected, expectedLabel);
  expect(diff).toEqual({ rows: expected.length, duplicated: [], missing: [], unknown: [], firstOutOfOrder: null, wrongStatus: [] });
  // The walk asks for the platform's largest pages: the whole history in a handful of requests.
  expect(requests.filter((u) => u.searchParams.get('limit') === '1000').length).toBe(Math.ceil((history.length - 100) / 1000));

  // The controls say what the address says.
  await expect(page.locator('.chip__label')).toHaveText(['Error', 'Cancelled']);

  // A filter chosen with two clicks, no modifier key: the address and the table follow (the whole history is loaded).
  await page.getByRole('button', { name: /^Status\b/ }).click();
  const statusList = page.getByRole('listbox', { name: 'Status' });
  await expect(statusList.getByRole('option', { selected: true })).toHaveText(['Error', 'Cancelled']);
  await statusList.getByRole('option', { name: 'Cancelled' }).click();
  await expect(page).toHaveURL(/[?&]status=error$/);
  const errors = history.filter((op) => op.status === 'error');
  await expect(page.getByRole('status').filter({ hasText: /^Searched the whole history/ })).toContainText(`· ${errors.length} matches`);
  expect(compareWithApi(await readOperationsTable(operationsTable(page)), errors, expectedLabel)).toMatchObject({
    rows: errors.length,
    missing: [],
    unknown: [],
  });
  // Axe on the page with the popup open, light and dark.
  await expect(statusList.getByRole('option', { selected: true })).toHaveText(['Error']);
  await expectNoSeriousViolations(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectNoSeriousViolations(page);
});

test("the timeline's marks are links to the operations that match, reachable by keyboard", async ({ page }) => {
  await page.goto(`${projectPath(big.id)}?status=error`);
  await searchedToTheEnd(page);
  const figure = page.getByRole('figure').filter({ has: page.locator('figcaption', { hasText: 'Timeline' }) });
  await expect(figure).toBeVisible();
  const marks = figure.getByRole('link');
  const errors = history.filter((op) => op.status === 'error');
  await expect(marks).toHaveCount(errors.length);
  const hrefs = await marks.evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  expect(new Set(hrefs)).toEqual(new Set(errors.map((op) => operationPath(big.id, op.id))));

  // Tab from the window choice onto the first mark, and Enter opens its operation.
  await figure.getByRole('combobox', { name: 'Window' }).focus();
  await page.keyboard.press('Tab');
  const focused = page.locator(':focus');
  await expect(focused).toHaveAttribute('href', /\/operations\//);
  const href = await focused.getAttribute('href');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(href ?? '');
  await expect(page.getByTestId('operation-status')).toHaveText('Error');
});

test('the keyboard goes from / to an opened operation', async ({ page }) => {
  await page.goto(projectPath(big.id));
  await expect(operationsTable(page).locator('tbody tr').first()).toBeVisible();
  const search = page.getByRole('searchbox', { name: 'Search' });
  // The rows arrive rendered by the server; the shortcuts work once the browser has taken the page over.
  await expect(async () => {
    await page.keyboard.press('/');
    await expect(search).toBeFocused({ timeout: 500 });
  }).toPass();
  await expect(search).toHaveValue('');
  await page.keyboard.type('apply config');
  await page.keyboard.press('Escape');
  await expect(search).not.toBeFocused();
  await expect(page).toHaveURL(/q=apply\+config/);
  const applies = history.filter((op) => op.action === 'apply_config');
  await expect(operationsTable(page).locator('tbody tr').first().getByRole('link').first()).toHaveAttribute('href', operationPath(big.id, applies[0]!.id));

  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  const second = operationsTable(page).locator('tbody tr').nth(1).getByRole('link').first();
  await expect(second).toBeFocused();
  const href = await second.getAttribute('href');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(href ?? '');
  await expect(page.getByRole('heading', { level: 1, name: 'Apply config' })).toBeVisible();

  // Back to the list, as filtered.
  await page.goBack();
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('apply config');

  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  await expectNoSeriousViolations(page);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

/**
 * Presses a copy button and reads the clipboard once the button says it has copied, not before the
 * write lands. A server-rendered button does nothing until the page hydrates: pressed again until it says so.
 */
async function copied(page: Page, button: string): Promise<string> {
  const copy = page.locator('.copy-button').filter({ has: page.getByRole('button', { name: button }) });
  await expect(async () => {
    await copy.getByRole('button').click();
    await expect(copy.getByRole('status')).toHaveText('Copied.', { timeout: 1_000 });
  }).toPass();
  return page.evaluate(() => navigator.clipboard.readText());
}

test("an operation's page copies its read as curl and as neonctl, without the key", async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const op = history[5]!;
  await page.goto(operationPath(big.id, op.id));
  await expect(page.getByTestId('operation-status')).toBeVisible();
  const curl = await copied(page, 'Copy as curl');
  expect(curl).toContain('"Authorization: Bearer $NEON_API_KEY"');
  expect(curl).toContain(`/api/v2/projects/${big.id}/operations/${op.id}`);
  const neonctl = await copied(page, 'Copy as neonctl');
  expect(neonctl).toMatch(/^npx neonctl api \/projects\/.+ --api-key "\$NEON_API_KEY"$/);
  for (const text of [curl, neonctl]) expect(text).not.toContain(E2E_API_KEY);
  await expectNoSeriousViolations(page);
});

/** Runs a copied command in a POSIX shell with the key in NEON_API_KEY, as a person would after pasting it. */
function runInShell(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', command],
      { env: { PATH: process.env.PATH ?? '', NEON_API_KEY: E2E_API_KEY }, timeout: 60_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the copied command failed (${String(error.code ?? error.signal)}): ${stderr.replaceAll(E2E_API_KEY, '<key>')}`));
        else resolve(stdout);
      },
    );
  });
}

test("Copy as curl of a filtered history prints exactly the page's matches, past the first 1,000 operations", async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const expected = settledMatches();
  // Matches beyond the first page of 1,000: a command that read one page would miss them.
  expect(history.length).toBeGreaterThan(1_000);
  expect(history.findIndex((op) => op.id === expected.at(-1)?.id)).toBeGreaterThanOrEqual(1_000);

  await page.goto(`${projectPath(big.id)}?${SETTLED_FILTER}`);
  await searchedToTheEnd(page);
  const shown = (await readOperationsTable(operationsTable(page))).map((row) => row.id);
  expect(shown).toEqual(expected.map((op) => op.id));

  const curl = await copied(page, 'Copy as curl');
  expect(curl).not.toContain(E2E_API_KEY);
  const printed = (await runInShell(curl))
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { id: string }).id);
  expect(printed).toEqual(shown);

  // neonctl cannot follow the cursor: the page says what its command covers.
  await expect(page.getByText(/^neonctl reads the newest 1,000 operations only/)).toBeVisible();
});
