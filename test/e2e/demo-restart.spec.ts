import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { freePort } from '../../bench/server';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, request as playwrightRequest, test } from '@playwright/test';
import { ControlApi, type ApiOperation } from './support/api';
import { E2E_API_KEY, signInThroughKeyScreen } from './support/session';

// The demo's history holds still across a restart (docs/simulator.md#the-demo-world): a server of its own (its own
// port and DATA_DIR, the lanes' build), the archive kept with the demo key, a branch made; then the server is
// stopped and started again on the same DATA_DIR, and every operation the archive kept has the same created_at on
// the archive's page and the API's, and the branch is still there.

interface Demo {
  child: ChildProcess;
  exited: Promise<void>;
}

async function startDemo(port: number, dataDir: string): Promise<Demo> {
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    env: {
      ...process.env,
      TZ: 'UTC',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SIM_API_KEY: E2E_API_KEY,
      WEB_CONCURRENCY: '1',
      SHUTDOWN_GRACE_MS: '0',
      ARCHIVE_INTERVAL_MS: '1000',
      ARCHIVE_BUDGET: '700',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await expect.poll(() => /Ops Console: http/.test(stdout), { timeout: 30_000 }).toBe(true);
  return { child, exited };
}

async function stopDemo(demo: Demo): Promise<void> {
  demo.child.kill('SIGTERM');
  await demo.exited;
}

test('after a restart every archived operation keeps its time on the archive’s page and the API’s, and every branch stays', async ({ page }) => {
  test.setTimeout(90_000);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'ops-console-restart-'));
  const request = await playwrightRequest.newContext({ baseURL: origin });
  const api = new ControlApi(request, E2E_API_KEY);
  let demo = await startDemo(port, dataDir);
  try {
    await page.goto(`${origin}/settings/archive`);
    await signInThroughKeyScreen(page);
    await page.getByRole('button', { name: 'Keep history' }).click();
    const projects = await api.allProjects();
    const blog = projects.find((p) => p.name === 'blog-backend');
    if (!blog) throw new Error('no blog-backend in the demo');
    // Compared below: whatever the archive holds by then, and at least blog-backend's whole history.
    await expect
      .poll(
        async () => {
          const answer = await page.request.get(`${origin}/archive/projects/${blog.id}/operations?limit=1`);
          return answer.ok() ? ((await answer.json()) as { archive?: { backfilled?: boolean } }).archive?.backfilled : false;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    const made = await api.post<{ branch: { id: string; name: string } }>(`/projects/${blog.id}/branches`, {});
    const branchesBefore = new Map<string, string[]>();
    for (const project of projects) {
      const { branches } = await api.get<{ branches: { id: string }[] }>(`/projects/${project.id}/branches`);
      branchesBefore.set(project.id, branches.map((b) => b.id).sort());
    }
    expect(branchesBefore.get(blog.id)).toContain(made.branch.id);

    await stopDemo(demo);
    demo = await startDemo(port, dataDir);

    // The archive's page (its history answered from the store) and the API's, project by project.
    let compared = 0;
    for (const project of projects) {
      const archived = await page.request.get(`${origin}/archive/projects/${project.id}/operations?limit=1000`);
      expect(archived.status()).toBe(200);
      const kept = ((await archived.json()) as { operations?: ApiOperation[] }).operations ?? [];
      const listed = new Map((await api.operations(project.id, 1000, 1000)).map((op) => [op.id, op.created_at]));
      const times = kept.filter((op) => listed.has(op.id)).map((op) => `${op.id} ${op.created_at}`);
      expect(times).toEqual(kept.filter((op) => listed.has(op.id)).map((op) => `${op.id} ${listed.get(op.id) ?? ''}`));
      // Every operation the archive kept is still one the API lists (none vanished with the restart).
      expect(kept.filter((op) => !listed.has(op.id)).map((op) => op.id)).toEqual([]);
      compared += times.length;
      const { branches } = await api.get<{ branches: { id: string }[] }>(`/projects/${project.id}/branches`);
      expect(branches.map((b) => b.id).sort()).toEqual(branchesBefore.get(project.id));
    }
    expect(compared).toBeGreaterThanOrEqual(40);

    // As a person sees it: a row of the archive's history and the operation's own page (read from the API) agree.
    await page.goto(`${origin}/projects/${blog.id}?status=finished`);
    await expect(page.getByText(/From the history archive/)).toBeVisible();
    const row = page
      .getByRole('table', { name: /operations/i })
      .locator('tbody tr')
      .last();
    const link = row.getByRole('link').first();
    const listedTime = (await row.locator('time').first().getAttribute('datetime')) ?? 'none';
    await link.click();
    await expect(page.locator('dt', { hasText: 'Created' }).locator('+ dd time').first()).toHaveAttribute('datetime', listedTime);
  } finally {
    await stopDemo(demo);
    await request.dispose();
    await rm(dataDir, { recursive: true, force: true });
  }
});
