import { expect, test, type Locator, type Page } from '@playwright/test';
import { ControlApi, HUGE_HISTORY, scaleProject } from './support/api';
import { expectNoSeriousViolations } from './support/axe';
import { loadedRowCount, operationPath, operationsTable, projectPath, readOperationsTable, revealRow } from './support/screens';
import { E2E_API_KEY, holdKey } from './support/session';

// The simulator's scale project, HUGE_HISTORY operations long (SIM_HUGE_PROJECT, set in playwright.config.ts; the
// bench walks it at 20,000).
const PAGE_ROWS = 100;
/** However long the table, the DOM holds about a screenful of rows plus the overscan (and the focused one). */
const MAX_RENDERED_ROWS = 120;

function renderedRows(table: Locator): Locator {
  return table.locator('tbody tr:not([aria-hidden="true"])');
}

/** "Load more" until `target` rows are loaded (or the list ends): a few real key presses, then the button driven in a loop. */
async function loadUntil(page: Page, table: Locator, target: number): Promise<void> {
  const loadMore = page.getByRole('button', { name: /Load more/ });
  for (let i = 0; i < 3 && (await loadMore.count()) > 0 && (await loadedRowCount(table)) < target; i++) {
    const before = await loadedRowCount(table);
    // By keyboard, as a person may: a mouse click aimed at the button thousands of rows down can land
    // beside it when rows measured as they scroll into view move it between press and release.
    await loadMore.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => loadedRowCount(table), { timeout: 15_000, intervals: [50] }).toBeGreaterThan(before);
  }
  // The rest in the page, one click per page as a person would, without a round trip to the test per click.
  const reached = await page.evaluate(async (wanted) => {
    const table = document.querySelector('main table[aria-rowcount]');
    const rowCount = () => Number(table?.getAttribute('aria-rowcount')) - 1;
    const button = () => Array.from(document.querySelectorAll('main button')).find((b) => /Load more/.test(b.textContent));
    const ended = () => document.body.textContent.includes('End of history');
    for (let clicks = 0; clicks < 300 && rowCount() < wanted && !ended(); clicks++) {
      const before = rowCount();
      const load = button();
      if (!(load instanceof HTMLButtonElement)) break;
      load.click();
      const deadline = performance.now() + 15_000;
      // Frame by frame until the rows have come (or the history has ended).
      while (rowCount() === before && !ended() && performance.now() < deadline) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      // Some time for the table to settle, as between a person's clicks.
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return rowCount();
  }, target);
  expect(reached).toBeGreaterThanOrEqual(Math.min(target, HUGE_HISTORY));
}

test.describe(`a project with ${HUGE_HISTORY.toLocaleString('en')} operations`, () => {
  test.beforeEach(async ({ context }) => {
    await holdKey(context);
  });

  test('loads to its end by "Load more", each operation once and in order, with a bounded DOM', async ({ page, request }) => {
    test.setTimeout(120_000);
    const api = new ControlApi(request, E2E_API_KEY);
    const project = await scaleProject(api);
    const walked = await api.operations(project.id);
    expect(walked).toHaveLength(HUGE_HISTORY);

    await page.goto(projectPath(project.id));
    const table = operationsTable(page);
    await expect(table.locator('tbody tr').first()).toBeVisible();
    await expect(table).toHaveAttribute('aria-rowcount', String(PAGE_ROWS + 1));

    await loadUntil(page, table, HUGE_HISTORY / 2);
    expect(await loadedRowCount(table)).toBeGreaterThanOrEqual(HUGE_HISTORY / 2);
    expect(await renderedRows(table).count()).toBeLessThanOrEqual(MAX_RENDERED_ROWS);

    await loadUntil(page, table, HUGE_HISTORY + 1);
    await expect(page.getByText(/End of history/)).toBeVisible();
    await expect(page.getByRole('button', { name: /Load more/ })).toHaveCount(0);
    await expect(page.getByText(`${HUGE_HISTORY} operations loaded`)).toBeVisible();
    await expect(table).toHaveAttribute('aria-rowcount', String(HUGE_HISTORY + 1));
    expect(await renderedRows(table).count()).toBeLessThanOrEqual(MAX_RENDERED_ROWS);

    // Scrolled through from the first row to the last: every operation once, newest first, as the API lists them.
    const shown = await readOperationsTable(table);
    expect(shown.length).toBe(HUGE_HISTORY);
    const firstOutOfOrder = shown.findIndex((row, i) => row.id !== walked[i]?.id);
    expect(firstOutOfOrder, 'first row that differs from the API walk').toBe(-1);
    expect(new Set(shown.map((row) => row.id)).size).toBe(HUGE_HISTORY);
    expect(await renderedRows(table).count()).toBeLessThanOrEqual(MAX_RENDERED_ROWS);

    // The last row is on screen now and opens its own detail page.
    const last = walked.at(-1)!;
    const lastRow = table.locator(`tbody tr[aria-rowindex="${HUGE_HISTORY + 1}"]`);
    await expect(lastRow).toBeInViewport();
    await lastRow.getByRole('link', { name: /./ }).first().click();
    await expect(page).toHaveURL(operationPath(project.id, last.id));
  });

  test('Tab walks the row links as rows scroll in, a focused row stays rendered, and axe finds nothing serious', async ({ page, request }) => {
    test.setTimeout(120_000);
    const project = await scaleProject(new ControlApi(request, E2E_API_KEY));
    await page.goto(projectPath(project.id));
    const table = operationsTable(page);
    await expect(table.locator('tbody tr').first()).toBeVisible();
    await loadUntil(page, table, 1_000);
    expect(await renderedRows(table).count()).toBeLessThanOrEqual(MAX_RENDERED_ROWS);

    // From row 1's link, Tab goes row by row (link, then its Watch button) far past the first window.
    const firstLink = (await revealRow(table, 0)).getByRole('link').first();
    await firstLink.focus();
    const focusedRow = () => page.evaluate(() => Number(document.activeElement?.closest('tr[aria-rowindex]')?.getAttribute('aria-rowindex') ?? 0));
    let previous = await focusedRow();
    expect(previous).toBe(2);
    for (let press = 0; press < 160; press++) {
      await page.keyboard.press('Tab');
      const now = await focusedRow();
      expect(now, `after Tab ${press + 1} focus is on a row at or after the previous one`).toBeGreaterThanOrEqual(previous);
      expect(now - previous).toBeLessThanOrEqual(1);
      previous = now;
    }
    // Well past the first window (a screenful plus the overscan, about 30 rows).
    expect(previous).toBeGreaterThanOrEqual(45);

    // Scrolled far away, the focused row is still there and still holds focus; Tab carries on from it.
    const focusedId = await page.evaluate(() => document.activeElement?.closest('tr')?.querySelector('a')?.getAttribute('href'));
    await expect(await revealRow(table, (await loadedRowCount(table)) - 1)).toBeInViewport();
    await expect(table.locator(`tbody tr[aria-rowindex="${previous}"]`)).not.toBeInViewport();
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.querySelector('a')?.getAttribute('href'))).toBe(focusedId);
    expect(await renderedRows(table).count()).toBeLessThanOrEqual(MAX_RENDERED_ROWS + 1);
    await page.keyboard.press('Tab');
    expect(await focusedRow()).toBeGreaterThanOrEqual(previous);

    // Axe on the windowed table, scrolled into the middle (gap rows above and below).
    await revealRow(table, 500);
    await expectNoSeriousViolations(page, 'main table');
  });
});
