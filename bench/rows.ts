// How the operations table of a 20,000-operation project responds as "Load more" pages through all of
// it: an interaction-to-next-paint figure from the Event Timing API, for clicks on "Load more" and for
// keys that scroll or move focus, at up to 5,000 and at up to 20,000 loaded rows; plus the JS heap
// and the DOM size at 5,000 and 20,000 rows. Runs its own console server over the built dist/ with
// SIM_HUGE_PROJECT=1, so the other measurements keep the default demo data.
import { chromium, type Page } from '@playwright/test';
import playwrightConfig, { CHROMIUM } from '../playwright.config';
import { signInContext, startConsole } from './server';

const HUGE_PROJECT_NAME = 'acme-event-archive';
/** INP's "good" bound; the issue asks for it at 5,000+ loaded rows. */
const TARGET_INP_MS = 100;
/** Event Timing reports only events at least this long (its minimum); shorter interactions count as this. */
const DURATION_THRESHOLD_MS = 16;
const KEY_ROUNDS = Number(process.env.BENCH_ROWS_KEY_ROUNDS ?? 3);

/**
 * Installed before the page's scripts. A string, not a function: tsx (esbuild keepNames) would wrap
 * inner functions in a `__name` helper that does not exist in the page.
 */
const RECORD_EVENTS = `(() => {
  window.__benchEvents = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.interactionId) window.__benchEvents.push({ id: e.interactionId, name: e.name, duration: e.duration });
    }
  }).observe({ type: 'event', durationThreshold: ${DURATION_THRESHOLD_MS}, buffered: true });
})();`;

interface EventRecord {
  id: number;
  name: string;
  duration: number;
}

export interface PhaseResult {
  phase: string;
  interactions: number;
  /** Per interaction, its longest event (INP's rule); those under the threshold count as the threshold. */
  medianMs: number;
  p98Ms: number;
  maxMs: number;
  /** Only for "Load more": click until the new rows are painted (includes the request), and clicks that loaded nothing. */
  missedClicks?: number;
  rowsPaintedMedianMs?: number;
  rowsPaintedMaxMs?: number;
  /** Whether this phase is held to the target (5,000+ loaded rows). */
  judged: boolean;
}

export interface Snapshot {
  rows: number;
  jsHeapUsedMiB: number;
  domNodes: number;
  renderedRows: number;
}

export interface RowsResult {
  project: { id: string; name: string };
  targetInpMs: number;
  phases: PhaseResult[];
  snapshots: Snapshot[];
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

async function takeEvents(page: Page): Promise<EventRecord[]> {
  return await page.evaluate<EventRecord[]>('window.__benchEvents.splice(0)');
}

function phase(
  name: string,
  events: readonly EventRecord[],
  interactions: number,
  judged: boolean,
  loads?: { paintedMs: number[]; missedClicks: number },
): PhaseResult {
  const byInteraction = new Map<number, number>();
  for (const e of events) byInteraction.set(e.id, Math.max(byInteraction.get(e.id) ?? 0, e.duration));
  const durations = [...byInteraction.values()];
  while (durations.length < interactions) durations.push(DURATION_THRESHOLD_MS);
  return {
    phase: name,
    interactions,
    medianMs: quantile(durations, 0.5),
    p98Ms: quantile(durations, 0.98),
    maxMs: Math.max(...durations),
    ...(loads ? { rowsPaintedMedianMs: quantile(loads.paintedMs, 0.5), rowsPaintedMaxMs: Math.max(...loads.paintedMs), missedClicks: loads.missedClicks } : {}),
    judged,
  };
}

const ROW_COUNT = `Number(document.querySelector('main table[aria-rowcount]')?.getAttribute('aria-rowcount') ?? 1) - 1`;

async function rowCount(page: Page): Promise<number> {
  return await page.evaluate<number>(ROW_COUNT);
}

const ROWS_PAINTED = (before: number) =>
  `(${ROW_COUNT}) > ${before} || !!document.evaluate("//p[contains(., 'End of history')]", document, null, 9, null).singleNodeValue
    ? new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())))
    : false`;

/**
 * Real clicks on "Load more" until `target` rows (or the end); per click, the time until the new rows are
 * painted. A click that starts no request (now and then one lands while the page is still settling from
 * Playwright's scroll into view) is clicked again and counted in `missedClicks`.
 */
async function loadMoreUntil(page: Page, target: number): Promise<{ clicks: number; missedClicks: number; paintedMs: number[] }> {
  const loadMore = page.getByRole('button', { name: /Load more/ });
  const paintedMs: number[] = [];
  let clicks = 0;
  let missedClicks = 0;
  while ((await rowCount(page)) < target && (await loadMore.count()) > 0) {
    const before = await rowCount(page);
    for (let attempt = 0; ; attempt++) {
      await loadMore.scrollIntoViewIfNeeded();
      const started = await page.evaluate<number>('performance.now()');
      await loadMore.click();
      clicks++;
      const painted = await page.waitForFunction(ROWS_PAINTED(before), null, { timeout: 10_000, polling: 'raf' }).catch(() => null);
      if (painted) {
        paintedMs.push(Number(await painted.jsonValue()) - started);
        break;
      }
      missedClicks++;
      if (attempt === 3) {
        const footer = await page
          .locator('main .table-footer')
          .textContent()
          .catch(() => null);
        throw new Error(`"Load more" at ${before} rows: no new rows after 4 clicks; the footer reads: ${footer ?? '(none)'}`);
      }
    }
  }
  return { clicks, missedClicks, paintedMs };
}

/** Keys a person uses on a long table: Page Down through it, End and Home, Tab along row links. */
async function pressKeys(page: Page): Promise<number> {
  let presses = 0;
  const press = async (key: string) => {
    await page.keyboard.press(key);
    presses++;
    // One frame apart, as key repeats are.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
  };
  for (let round = 0; round < KEY_ROUNDS; round++) {
    await page.evaluate('document.activeElement?.blur(); window.scrollTo(0, 0)');
    for (let i = 0; i < 10; i++) await press('PageDown');
    await press('End');
    await press('Home');
    await page.locator('main table[aria-rowcount] tbody tr a').first().focus();
    for (let i = 0; i < 20; i++) await press('Tab');
  }
  return presses;
}

async function snapshot(page: Page): Promise<Snapshot> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? NaN;
    return {
      rows: await rowCount(page),
      jsHeapUsedMiB: metric('JSHeapUsedSize') / 1024 / 1024,
      domNodes: await page.evaluate<number>('document.getElementsByTagName("*").length'),
      renderedRows: await page.evaluate<number>(`document.querySelectorAll('main table[aria-rowcount] tbody tr[data-index]').length`),
    };
  } finally {
    await cdp.detach();
  }
}

export async function findHugeProject(origin: string, apiKey: string): Promise<{ id: string; name: string }> {
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(new URL(`/api/v2${path}`, origin), { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' } });
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
    return (await response.json()) as T;
  };
  const { organizations } = await get<{ organizations: { id: string }[] }>('/users/me/organizations');
  for (const org of organizations) {
    const { projects } = await get<{ projects: { id: string; name: string }[] }>(`/projects?limit=400&org_id=${org.id}`);
    const found = projects.find((p) => p.name === HUGE_PROJECT_NAME);
    if (found) return found;
  }
  throw new Error(`${HUGE_PROJECT_NAME} not found: SIM_HUGE_PROJECT=1 did not reach the simulator`);
}

/** Starts its own console server over dist/ (built already) with the huge project, and measures the table there. */
export async function measureRows(env: NodeJS.ProcessEnv, apiKey: string): Promise<RowsResult> {
  const server = await startConsole({ ...env, SIM_HUGE_PROJECT: '1', SIM_API_KEY: apiKey });
  const browser = await chromium.launch({ ...(playwrightConfig.use?.launchOptions ?? {}), executablePath: CHROMIUM, headless: true });
  try {
    const project = await findHugeProject(server.origin, apiKey);
    // bypassCSP: the page's CSP forbids eval, which waitForFunction with a string (see RECORD_EVENTS) needs.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await signInContext(context, server.origin, apiKey);
    await context.addInitScript({ content: RECORD_EVENTS });
    const page = await context.newPage();
    await page.goto(`${server.origin}/projects/${encodeURIComponent(project.id)}`);
    await page.locator('main table[aria-rowcount] tbody tr a').first().waitFor();
    await takeEvents(page);

    const phases: PhaseResult[] = [];
    const snapshots: Snapshot[] = [];
    process.stdout.write('rows: loading to 5,000… ');
    const toFive = await loadMoreUntil(page, 5_000);
    phases.push(phase('"Load more" click, up to 5,000 rows', await takeEvents(page), toFive.clicks, false, toFive));
    snapshots.push(await snapshot(page));
    await takeEvents(page);
    const pressesAtFive = await pressKeys(page);
    phases.push(phase('keys (PageDown/End/Home/Tab) at 5,000 rows', await takeEvents(page), pressesAtFive, true));
    process.stdout.write('to the end… ');
    const toEnd = await loadMoreUntil(page, Number.POSITIVE_INFINITY);
    phases.push(phase('"Load more" click, 5,000 to 20,000 rows', await takeEvents(page), toEnd.clicks, true, toEnd));
    snapshots.push(await snapshot(page));
    await takeEvents(page);
    const presses = await pressKeys(page);
    phases.push(phase('keys (PageDown/End/Home/Tab) at 20,000 rows', await takeEvents(page), presses, true));
    process.stdout.write('done\n');
    await context.close();
    return { project, targetInpMs: TARGET_INP_MS, phases, snapshots };
  } finally {
    await browser.close();
    await server.stop();
  }
}

export function reportRows(result: RowsResult): void {
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  console.log(
    `\nOperations table of ${result.project.name} (20,000 operations), interaction to next paint (Event Timing; per interaction its longest event, under ${DURATION_THRESHOLD_MS} ms counted as ${DURATION_THRESHOLD_MS}):\n`,
  );
  console.log(`  ${'phase'.padEnd(46)} ${'n'.padStart(4)} ${'median'.padStart(7)} ${'p98'.padStart(7)} ${'max'.padStart(7)}  target`);
  for (const p of result.phases) {
    const verdict = p.judged ? `p98 < ${result.targetInpMs} ms ${mark(p.p98Ms < result.targetInpMs)}` : '(under 5,000 rows)';
    console.log(
      `  ${p.phase.padEnd(46)} ${String(p.interactions).padStart(4)} ${`${p.medianMs.toFixed(0)} ms`.padStart(7)} ${`${p.p98Ms.toFixed(0)} ms`.padStart(7)} ${`${p.maxMs.toFixed(0)} ms`.padStart(7)}  ${verdict}`,
    );
    if (p.rowsPaintedMedianMs !== undefined && p.rowsPaintedMaxMs !== undefined) {
      console.log(
        `    click to its 100 new rows painted (with the request): median ${p.rowsPaintedMedianMs.toFixed(0)} ms, max ${p.rowsPaintedMaxMs.toFixed(0)} ms; clicks that loaded nothing: ${p.missedClicks ?? 0}`,
      );
    }
  }
  console.log('');
  for (const s of result.snapshots) {
    console.log(
      `  at ${String(s.rows).padStart(6)} rows: JS heap ${s.jsHeapUsedMiB.toFixed(1)} MiB after GC, ${s.domNodes} DOM elements, ${s.renderedRows} operation rows rendered`,
    );
  }
}
