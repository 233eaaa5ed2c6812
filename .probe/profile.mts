import { chromium } from '@playwright/test';
import playwrightConfig from '../playwright.config';
const [origin, projectId, runs = '5'] = process.argv.slice(2);
const KEY = 'bench-key-0000000000000000000000';
const browser = await chromium.launch({ ...(playwrightConfig.use?.launchOptions ?? {}), headless: true });
const WATCH = `(() => { const sel='table tbody tr a[href*="/operations/"]'; let seen=false; const o=new MutationObserver(()=>{ if(seen||!document.querySelector(sel)) return; seen=true; o.disconnect(); requestAnimationFrame(()=>{window.__row=performance.now();}); }); o.observe(document,{childList:true,subtree:true}); })();`;
const self = new Map<string, number>();
let total = 0;
for (let i = 0; i < Number(runs); i++) {
  const context = await browser.newContext();
  await context.addInitScript(([k]) => sessionStorage.setItem('ops-console.api-key', k), [KEY] as const);
  await context.addInitScript({ content: WATCH });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  await page.goto(`${origin}/projects/${projectId}`, { waitUntil: 'commit' });
  await page.waitForFunction(() => (window as unknown as { __row?: number }).__row, null, { polling: 50 });
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, k) => {
    const n = byId.get(id)!;
    const cf = n.callFrame;
    const key = `${cf.functionName || '(anon)'} ${cf.url.replace(origin, '').replace(/-[A-Za-z0-9_]{8}\.js/, '.js')}:${cf.lineNumber}`;
    const d = (dt[k] ?? 0) / 1000;
    self.set(key, (self.get(key) ?? 0) + d);
    if (cf.functionName !== '(idle)' && cf.functionName !== '(program)') total += d;
  });
  await context.close();
}
await browser.close();
const n = Number(runs);
console.log('non-idle JS ms per run', (total / n).toFixed(1));
[...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 45).forEach(([k, v]) => console.log((v / n).toFixed(1).padStart(7), k));
