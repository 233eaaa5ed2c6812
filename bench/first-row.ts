import type { Browser, BrowserContext } from '@playwright/test';

/**
 * Installed before any page script: reports performance.now() (a console message) in the first animation frame after a
 * `table tbody tr` with a link to an operation is in the DOM, i.e. when it is about to be painted.
 * A string, not a function: tsx (esbuild keepNames) would wrap inner functions in a `__name` helper
 * that does not exist in the page.
 */
const WATCH_FOR_FIRST_ROW = `(() => {
  const selector = 'table tbody tr a[href*="/operations/"]';
  let seen = false;
  const observer = new MutationObserver(() => {
    if (seen || !document.querySelector(selector)) return;
    seen = true;
    observer.disconnect();
    requestAnimationFrame(() => console.debug('bench-first-row', performance.now()));
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

export interface FirstRowOptions {
  url: string;
  /** Signs the fresh context in (the session cookie) before the timed navigation; none for pages without a session. */
  signIn?: (context: BrowserContext) => Promise<unknown>;
}

export interface FirstRow {
  /** Milliseconds from navigation start to the first row painted. */
  ms: number;
  /** Whether the console's server rendered the rows into the page (its data block says when). */
  serverRendered: boolean;
}

/** One cold load in a fresh browser context. */
export async function timeToFirstRow(browser: Browser, { url, signIn }: FirstRowOptions): Promise<FirstRow> {
  const context = await browser.newContext();
  try {
    await signIn?.(context);
    await context.addInitScript({ content: WATCH_FOR_FIRST_ROW });
    const page = await context.newPage();
    // Told by the page (a console message), not polled for: an evaluation sent into the page while it loads
    // takes its main thread (30-50 ms for the first in a new context) and lands before the rows of a page
    // whose rows come later in its HTML, so polling measured the harness as much as the page.
    const reported = page.waitForEvent('console', { predicate: (message) => message.text().startsWith('bench-first-row'), timeout: 30_000 });
    // Awaited below; until then a failed navigation must not leave it rejected with no one listening.
    reported.catch(() => undefined);
    await page.goto(url, { waitUntil: 'commit' });
    try {
      const ms = Number((await reported).text().split(' ')[1]);
      // A rendered page's data block comes after the stylesheet that follows the rows, and the parser waits for that
      // file (docs/rendering.md): read the block once the whole HTML is parsed, not at the first row.
      await page.waitForLoadState('domcontentloaded');
      const serverRendered = await page.evaluate(() => document.getElementById('ops-console-data')?.textContent.includes('"renderedAt":') ?? false);
      return { ms, serverRendered };
    } catch (error) {
      // Say what the page showed instead of a row: a sign-in screen, an error callout, a blank page.
      const shown = await page.evaluate(() => document.body.innerText.replace(/\s+/g, ' ').slice(0, 1400)).catch(() => '?');
      throw new Error(`no operations row at ${url} within 30 s; the page showed: ${shown}`, { cause: error });
    }
  } finally {
    await context.close();
  }
}
