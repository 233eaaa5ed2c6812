import { readFileSync } from 'node:fs';
import { expect, type Locator, type Page } from '@playwright/test';
import { projectCensus, type ApiOperation, type ControlApi, type ListedProject } from './api';

/** The console's name for an action (docs/platform-api.md: `create_branch` reads "Create branch"). */
export function actionName(action: string): string {
  const words = action.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Waits until React has taken the server's HTML over (`hydrateRoot` has run on #root). Before that a link is a
 * plain link: a click loads the next page afresh, and what the console held in memory (its cache) is gone.
 */
export async function untilTakenOver(page: Page): Promise<void> {
  await expect.poll(() => isTakenOver(page)).toBe(true);
}

/** Whether React has taken the server's HTML over (`hydrateRoot` has run on #root). */
export function isTakenOver(page: Page): Promise<boolean> {
  return page.evaluate(() => Object.keys(document.getElementById('root') ?? {}).some((key) => key.startsWith('__reactContainer')));
}

/** The built chunk that mounts the app (chunks are named by their hash: the build's manifest says which it is). */
function appCodeFile(): string {
  const manifest = JSON.parse(readFileSync('dist/client/.vite/manifest.json', 'utf8')) as Record<string, { file?: string }>;
  const file = manifest['src/app/mount-app.tsx']?.file;
  if (!file) throw new Error('dist/client/.vite/manifest.json names no chunk for src/app/mount-app.tsx: build first');
  return file;
}

/**
 * The module scripts the page's HTML names (the build's index.html): the bundler's runtime and main.tsx's chunk.
 * Read from the build rather than matched by a name, since the first-load chunks are named by their hash alone.
 */
function pageScriptFiles(): string[] {
  const html = readFileSync('dist/client/index.html', 'utf8');
  const files = [...html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="\/([^"]+\.js)"/g)].map(([, file]) => file!);
  if (files.length === 0) throw new Error('dist/client/index.html names no module script: build first');
  return files;
}

/** Holds back every request for these built files until the returned function lets them through. */
async function holdFiles(page: Page, files: readonly string[]): Promise<() => void> {
  let letThrough!: () => void;
  const held = new Promise<void>((resolve) => (letThrough = resolve));
  const paths = new Set(files.map((file) => `/${file}`));
  await page.route(
    (url) => paths.has(url.pathname),
    async (route) => {
      await held;
      await route.continue();
    },
  );
  return letThrough;
}

/**
 * Holds React's code back (the chunk that mounts the app): the server's HTML is painted and can be used, but
 * nothing of React listens until the returned function lets the code through.
 */
export function holdAppCode(page: Page): Promise<() => void> {
  return holdFiles(page, [appCodeFile()]);
}

/**
 * Holds every script of the page back (the module scripts its HTML names): the server's HTML is painted and can
 * be used, but no script of the page has run, not even main.tsx's, until the returned function lets them through.
 */
export function holdPageScripts(page: Page): Promise<() => void> {
  return holdFiles(page, pageScriptFiles());
}

export function projectPath(projectId: string): string {
  return `/projects/${encodeURIComponent(projectId)}`;
}

export function operationPath(projectId: string, operationId: string): string {
  return `${projectPath(projectId)}/operations/${encodeURIComponent(operationId)}`;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The projects list, showing the list the project is in (personal, or its organization's). */
export async function showProjectInList(page: Page, project: ListedProject): Promise<Locator> {
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  if (project.organization) {
    await page.getByLabel('Organization').selectOption({ label: project.organization.name });
  }
  const link = page.getByRole('main').getByRole('link', { name: project.name, exact: true });
  await expect(link).toBeVisible();
  return link;
}

/** The operations table of a project's page (the page also has a table of branches and computes). */
export function operationsTable(page: Page): Locator {
  return page.getByRole('main').getByRole('table', { name: /^Operations/ });
}

export interface ShownOperation {
  id: string;
  href: string;
  /** The status cell as a screen reader reads it (decorative icons left out). */
  status: string;
}

/**
 * Every row of the operations table: the operation it links to and the status it shows. A long table
 * renders only the rows near the viewport, so this scrolls the page through it, collecting the rows by
 * their `aria-rowindex`, and leaves the page scrolled to the end.
 */
export async function readOperationsTable(table: Locator): Promise<ShownOperation[]> {
  return table.evaluate(async (element) => {
    const readable = (node: Node): string => {
      if (node instanceof Element && node.getAttribute('aria-hidden') === 'true') return '';
      if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
      return Array.from(node.childNodes, readable).join('');
    };
    const headers = Array.from(element.querySelectorAll('thead th'), (th) => readable(th).trim());
    const statusColumn = headers.indexOf('Status');
    const read = (row: Element) => {
      const href = row.querySelector('a[href*="/operations/"]')?.getAttribute('href') ?? '';
      const cell = statusColumn >= 0 ? row.children[statusColumn] : undefined;
      return {
        id: decodeURIComponent(href.split('/operations/')[1] ?? ''),
        href,
        status: cell ? readable(cell).replace(/\s+/g, ' ').trim() : '(no Status column)',
      };
    };
    const rendered = () => Array.from(element.querySelectorAll('tbody tr')).filter((row) => row.getAttribute('aria-hidden') !== 'true');
    const total = Number(element.getAttribute('aria-rowcount')) - 1;
    if (!(total > rendered().length)) return rendered().map(read);

    const byIndex = new Map<number, ReturnType<typeof read>>();
    const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const body = element.querySelector('tbody');
    window.scrollTo(0, (body?.getBoundingClientRect().top ?? 0) + window.scrollY);
    await nextFrame();
    const lastIndex = () => Number(rendered().at(-1)?.getAttribute('aria-rowindex') ?? 0);
    // A window that has not moved for 5 s may be a busy machine rather than the end: given three chances.
    let stalls = 0;
    for (let step = 0; step < 10_000 && byIndex.size < total; step++) {
      const rows = rendered();
      for (const row of rows) byIndex.set(Number(row.getAttribute('aria-rowindex')), read(row));
      const last = rows.at(-1);
      const before = window.scrollY;
      const reached = lastIndex();
      // The last rendered row to the top of the viewport: the next window starts where this one ends.
      if (last) window.scrollTo(0, last.getBoundingClientRect().top + window.scrollY - 1);
      // The window renders the new rows a frame or (on a busy machine) several frames later.
      const deadline = performance.now() + 5_000;
      do await nextFrame();
      while (lastIndex() === reached && performance.now() < deadline);
      if (window.scrollY === before && lastIndex() === reached) {
        if (++stalls >= 3) break;
      } else stalls = 0;
    }
    return [...byIndex].sort(([a], [b]) => a - b).map(([, row]) => row);
  });
}

/** How many operations the table holds, rendered or not (its `aria-rowcount`, less the header row). */
export async function loadedRowCount(table: Locator): Promise<number> {
  return Number(await table.getAttribute('aria-rowcount')) - 1;
}

/** Scrolls the page until the table renders its row `index` (0: the newest) and returns that row. */
export async function revealRow(table: Locator, index: number): Promise<Locator> {
  const row = table.locator(`tbody tr[aria-rowindex="${index + 2}"]`);
  for (let attempt = 0; attempt < 20 && (await row.count()) === 0; attempt++) {
    await table.evaluate(async (element, wanted) => {
      const rows = Array.from(element.querySelectorAll('tbody tr[aria-rowindex]'));
      const first = rows[0];
      const last = rows.at(-1);
      if (!first || !last) return;
      const firstIndex = Number(first.getAttribute('aria-rowindex'));
      const lastIndex = Number(last.getAttribute('aria-rowindex'));
      const top = first.getBoundingClientRect().top;
      const height = (last.getBoundingClientRect().bottom - top) / Math.max(1, lastIndex - firstIndex + 1);
      window.scrollTo(0, window.scrollY + top + (wanted + 2 - firstIndex) * height - window.innerHeight / 2);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }, index);
  }
  await row.evaluate(async (element) => {
    element.scrollIntoView({ block: 'center' });
    await new Promise((resolve) => requestAnimationFrame(resolve));
  });
  return row;
}

/** Differences between the table and the API's walk, in words short enough to read in a failure. */
export function compareWithApi(shown: readonly ShownOperation[], walked: readonly ApiOperation[], label: (s: string) => string) {
  const seen = new Map<string, number>();
  for (const row of shown) seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`);
  const walkedIds = new Set(walked.map((op) => op.id));
  const missing = walked.filter((op) => !seen.has(op.id)).map((op) => op.id);
  const unknown = shown.filter((row) => !walkedIds.has(row.id)).map((row) => row.id || `(no link: ${row.href})`);
  const firstOutOfOrder = shown.findIndex((row, i) => row.id !== walked[i]?.id);
  const wrongStatus = shown
    .map((row, i) => ({ row, op: walked[i] }))
    .filter(({ row, op }) => op !== undefined && op.id === row.id && row.status !== label(op.status))
    .map(({ row, op }) => `${row.id}: shows "${row.status}", API says ${op?.status}`);
  return {
    rows: shown.length,
    duplicated: duplicated.slice(0, 5),
    missing: missing.slice(0, 5),
    unknown: unknown.slice(0, 5),
    firstOutOfOrder: firstOutOfOrder === -1 ? null : firstOutOfOrder,
    wrongStatus: wrongStatus.slice(0, 5),
  };
}

export function detailStatus(page: Page): Locator {
  return page.getByRole('main').getByTestId('operation-status');
}

export function pickOperation(ops: readonly ApiOperation[], index: number): ApiOperation {
  const op = ops[Math.min(index, ops.length - 1)];
  if (!op) throw new Error('the project has no operations');
  return op;
}

/**
 * Clicks "Load more" until the list ends, each click waiting for its rows (counted through
 * aria-rowcount: a long table renders only the rows near the viewport). `onClick` runs after each.
 * A click that starts nothing within `settleMs` is made again: now and then Playwright's real click
 * lands while the windowed table is still settling from the scroll that brought the button into view.
 * A page that keeps failing is retried now, by its Retry, once the console would wait longer than
 * `patienceS` seconds for its next try (it waits up to a minute), as a person would.
 */
export async function loadMoreToEnd(page: Page, { maxClicks = 300, settleMs = 10_000, patienceS = 5 } = {}): Promise<{ clicks: number; repeated: number }> {
  const table = operationsTable(page);
  const loadMore = page.getByRole('button', { name: /Load more/ });
  const moved = async (before: number) => (await loadMore.count()) === 0 || (await loadedRowCount(table)) > before;
  let clicks = 0;
  let repeated = 0;
  const loading = page.getByText('Loading more operations…');
  const failing = page.getByRole('alert').filter({ hasText: 'Could not load more operations.' });
  const retryIfLongWait = async () => {
    const wait = /Retrying in (\d+) s/.exec((await failing.textContent({ timeout: 1_000 }).catch(() => null)) ?? '');
    if (!wait || Number(wait[1]) <= patienceS) return;
    // The page may come meanwhile and take the alert with it.
    await failing
      .getByRole('button', { name: 'Retry' })
      .click({ timeout: 1_000 })
      .catch(() => undefined);
  };
  // The first page first: until it is in, there is no "Load more" and the loop below would not start.
  await expect(loadMore.or(page.getByText(/^End of history\./))).toBeVisible();
  while (clicks < maxClicks && (await loadMore.count()) > 0) {
    const before = await loadedRowCount(table);
    // By keyboard: a click aimed at the button far down a long table can land beside it when rows
    // measured as they scroll into view move it between press and release.
    await loadMore.focus();
    await page.keyboard.press('Enter');
    clicks++;
    const clickedAt = Date.now();
    // Rows came, or nothing has been loading for `settleMs` (a page waiting for its next try shows its callout).
    await expect
      .poll(
        async () => {
          if (await moved(before)) return true;
          if ((await failing.count()) > 0) {
            await retryIfLongWait();
            return false;
          }
          return (await loading.count()) === 0 && Date.now() - clickedAt > settleMs;
        },
        {
          timeout: 120_000,
          intervals: [50],
        },
      )
      .toBe(true);
    if (!(await moved(before))) repeated++;
  }
  await expect(loadMore).toHaveCount(0);
  return { clicks, repeated };
}

/** Opens the detail of the big project's newest operation and waits for its heading and status. */
export async function openNewestOperationOfBigProject(page: Page, api: ControlApi): Promise<ApiOperation> {
  const { big } = await projectCensus(api);
  const [op] = await api.newestOperations(big.id, 1);
  if (!op) throw new Error('the big project has no operation');
  await page.goto(operationPath(big.id, op.id));
  await expect(page.getByRole('heading', { level: 1, name: actionName(op.action) })).toBeVisible();
  await expect(detailStatus(page)).toBeVisible();
  return op;
}
