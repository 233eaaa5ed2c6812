// How long a filter takes to search a whole long history: a deep link to the 20,000-operation project
// filtered to `status=failed`, from navigation until the page says it searched the whole history,
// with the requests that took (and the most in any one second, all of the page's requests counted),
// checked against the API's own count of failed operations. Runs its own console server over the
// built dist/ with SIM_HUGE_PROJECT=1, like the rows measurement.
import { chromium } from '@playwright/test';
import playwrightConfig, { CHROMIUM } from '../playwright.config';
import { maxInAnySecond, TARGET_PER_SECOND } from './requests';
import { findHugeProject } from './rows';
import { signInContext, startConsole } from './server';

const RUNS = Number(process.env.BENCH_WALK_RUNS ?? 3);
/** The target for finding every failed operation of the 20,000. */
export const TARGET_WALK_MS = 10_000;

export interface WalkRun {
  ms: number;
  matches: number;
  /** Requests to the project's operations list: the first page, then the walk's pages of 1,000. */
  listRequests: number;
  walkRequests: number;
  allRequests: number;
  maxPerSecond: number;
  rateLimited: number;
}

export interface WalkResult {
  project: { id: string; name: string };
  failedByApi: number;
  runs: WalkRun[];
  medianMs: number;
  targetMs: number;
  targetPerSecond: number;
}

async function countFailed(origin: string, apiKey: string, projectId: string): Promise<number> {
  let failed = 0;
  let cursor: string | undefined;
  for (;;) {
    const url = new URL(`/api/v2/projects/${encodeURIComponent(projectId)}/operations`, origin);
    url.searchParams.set('limit', '1000');
    if (cursor) url.searchParams.set('cursor', cursor);
    const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' } });
    if (!response.ok) throw new Error(`GET ${url.pathname} answered ${response.status}`);
    const page = (await response.json()) as { operations: { status: string }[]; pagination?: { cursor: string } };
    failed += page.operations.filter((op) => op.status === 'failed').length;
    if (page.operations.length < 1000 || !page.pagination) return failed;
    cursor = page.pagination.cursor;
  }
}

export async function measureWalk(env: NodeJS.ProcessEnv, apiKey: string): Promise<WalkResult> {
  const server = await startConsole({ ...env, SIM_HUGE_PROJECT: '1', SIM_API_KEY: apiKey });
  const browser = await chromium.launch({ ...(playwrightConfig.use?.launchOptions ?? {}), executablePath: CHROMIUM, headless: true });
  try {
    const project = await findHugeProject(server.origin, apiKey);
    const failedByApi = await countFailed(server.origin, apiKey, project.id);
    const runs: WalkRun[] = [];
    process.stdout.write('walk: ');
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await signInContext(context, server.origin, apiKey);
      const times: number[] = [];
      let list = 0;
      let walk = 0;
      let rateLimited = 0;
      context.on('request', (request) => {
        const url = new URL(request.url());
        if (!url.pathname.startsWith('/api/v2/')) return;
        times.push(Date.now());
        if (url.pathname === `/api/v2/projects/${project.id}/operations`) {
          list++;
          if (url.searchParams.get('limit') === '1000') walk++;
        }
      });
      context.on('response', (response) => {
        if (response.status() === 429) rateLimited++;
      });
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(`${server.origin}/projects/${encodeURIComponent(project.id)}?status=failed`);
      const done = page.getByRole('status').filter({ hasText: /^Searched the whole history/ });
      await done.waitFor({ timeout: 120_000 });
      const ms = Date.now() - started;
      const text = (await done.textContent()) ?? '';
      const matches = Number(/· ([\d,]+) match/.exec(text)?.[1]?.replace(/,/g, '') ?? NaN);
      runs.push({ ms, matches, listRequests: list, walkRequests: walk, allRequests: times.length, maxPerSecond: maxInAnySecond(times), rateLimited });
      await context.close();
      process.stdout.write('.');
    }
    process.stdout.write(' done\n');
    const sorted = runs.map((r) => r.ms).sort((a, b) => a - b);
    return {
      project,
      failedByApi,
      runs,
      medianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
      targetMs: TARGET_WALK_MS,
      targetPerSecond: TARGET_PER_SECOND,
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}

export function reportWalk(result: WalkResult): void {
  const mark = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  console.log(
    `\nFilter search through ${result.project.name} (20,000 operations): a deep link with ?status=failed, from navigation to "Searched the whole history"; the API counts ${result.failedByApi} failed:\n`,
  );
  for (const [i, r] of result.runs.entries()) {
    console.log(
      `  run ${i + 1}: ${r.ms} ms, ${r.matches} matches (${mark(r.matches === result.failedByApi)}), ${r.listRequests} list requests (${r.walkRequests} of 1,000), ${r.allRequests} requests in all, most in any 1 s ${r.maxPerSecond}, 429s ${r.rateLimited}`,
    );
  }
  console.log(`  median ${result.medianMs} ms (target < ${result.targetMs} ms: ${mark(result.medianMs < result.targetMs)})`);
}
