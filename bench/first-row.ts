import type { Browser, BrowserContext } from '@playwright/test';

declare global {
  interface Window {
    __benchFirstRowMs?: number;
  }
}

/**
 * Installed before any page script: notes performance.now() in the first animation frame after a
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
    requestAnimationFrame(() => { window.__benchFirstRowMs = performance.now(); });
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

export interface FirstRowOptions {
  url: string;
  /** Signs the fresh context in (the session cookie) before the timed navigation; none for pages without a session. */
  signIn?: (context: BrowserContext) => Promise<unknown>;
}

/** One cold load in a fresh browser context: milliseconds from navigation start to the first row painted. */
export async function timeToFirstRow(browser: Browser, { url, signIn }: FirstRowOptions): Promise<number> {
  const context = await browser.newContext();
  try {
    await signIn?.(context);
    await context.addInitScript({ content: WATCH_FOR_FIRST_ROW });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    try {
      const handle = await page.waitForFunction(() => window.__benchFirstRowMs, null, { timeout: 30_000, polling: 50 });
      return (await handle.jsonValue()) as number;
    } catch (error) {
      // Say what the page showed instead of a row: a sign-in screen, an error callout, a blank page.
      const shown = await page.evaluate(() => document.body.innerText.replace(/\s+/g, ' ').slice(0, 400)).catch(() => '?');
      throw new Error(`no operations row at ${url} within 30 s; the page showed: ${shown}`, { cause: error });
    }
  } finally {
    await context.close();
  }
}
