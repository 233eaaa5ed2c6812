import { readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import playwrightConfig from '../playwright.config';
const origin = process.argv[2]!;
const projectId = process.argv[3]!;
const KEY = 'bench-key-0000000000000000000000';
const browser = await chromium.launch({ ...(playwrightConfig.use?.launchOptions ?? {}), headless: true });
const WATCH = `(() => {
  const selector = 'table tbody tr a[href*="/operations/"]';
  let seen = false;
  const observer = new MutationObserver(() => {
    if (seen || !document.querySelector(selector)) return;
    seen = true; observer.disconnect();
    window.__rowInDom = performance.now();
    requestAnimationFrame(() => { window.__benchFirstRowMs = performance.now(); });
  });
  observer.observe(document, { childList: true, subtree: true });
  new PerformanceObserver((l) => { for (const e of l.getEntries()) (window.__lt ??= []).push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
})();`;
for (let i = 0; i < Number(process.argv[4] ?? 3); i++) {
  const context = await browser.newContext();
  await context.addInitScript(([k]) => sessionStorage.setItem('ops-console.api-key', k), [KEY] as const);
  await context.addInitScript({ content: WATCH });
  const page = await context.newPage();
  await page.goto(`${origin}/projects/${projectId}`, { waitUntil: 'commit' });
  await page.waitForFunction(() => (window as any).__benchFirstRowMs, null, { polling: 50 });
  const out = await page.evaluate(readFileSync(new URL('./collect.js', import.meta.url), 'utf8'));
  console.log(JSON.stringify(out, null, 1));
  await context.close();
}
await browser.close();
