import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { freePort } from '../../bench/server';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import Provider from 'oidc-provider';
import { expectNoSeriousViolations } from './support/axe';
import { layoutProblems } from './support/layout';

// Team sign-in as people meet it (docs/team.md): a console started with SIGN_IN=oidc against a real OpenID
// Provider (oidc-provider, on a loopback port, its own login page), people in groups given roles by ROLES. A viewer
// reads a history and is refused a restart (recorded); an operator restarts a compute and the history says who;
// an admin reads both in the audit trail, filtered by person, and exports them; a person without a role sees "No
// access"; the team key is found nowhere the browser can read. One console, one provider, for the whole file.

const TEAM_KEY = 'team-e2e-key-0000000000000000000';
const CLIENT_SECRET = 'team-e2e-client-secret-0000000000';
const PEOPLE: Record<string, { name: string; groups: string[] }> = {
  vera: { name: 'Vera Viewer', groups: ['ops-readers'] },
  otto: { name: 'Otto Operator', groups: ['ops-readers', 'ops-oncall'] },
  ada: { name: 'Ada Admin', groups: ['platform-admins'] },
  nora: { name: 'Nora Nobody', groups: ['visitors'] },
};

let console_: ChildProcess | undefined;
let idp: http.Server | undefined;
let dataDir = '';
let origin = '';
let output = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const [consolePort, idpPort] = [await freePort(), await freePort()];
  origin = `http://127.0.0.1:${consolePort}`;
  const issuer = `http://127.0.0.1:${idpPort}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'ops-console',
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${origin}/auth/callback`],
        post_logout_redirect_uris: [`${origin}/`],
      },
    ],
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'groups'] },
    findAccount: (_ctx, id) => {
      const person = PEOPLE[id];
      return person ? { accountId: id, claims: () => ({ sub: id, email: `${id}@example.com`, name: person.name, groups: person.groups }) } : undefined;
    },
    cookies: { keys: ['team-e2e-cookie-key-000000000000'] },
  });
  const answer = provider.callback();
  idp = http.createServer((req, res) => void answer(req, res));
  await new Promise<void>((resolve) => idp!.listen(idpPort, '127.0.0.1', resolve));

  dataDir = await mkdtemp(join(tmpdir(), 'ops-console-team-'));
  console_ = spawn(process.execPath, ['dist/server/main.js'], {
    env: {
      ...process.env,
      PORT: String(consolePort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '0',
      SIM_API_KEY: TEAM_KEY,
      SIGN_IN: 'oidc',
      TEAM_API_KEY: TEAM_KEY,
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: 'ops-console',
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      ROLES: 'admin=platform-admins;operator=ops-oncall;viewer=ops-readers',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  console_.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  console_.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await expect.poll(() => /Ops Console: http/.test(output), { timeout: 30_000 }).toBe(true);
});

test.afterAll(async () => {
  console_?.kill('SIGTERM');
  if (console_ && console_.exitCode === null) await new Promise((resolve) => console_!.once('exit', resolve));
  idp?.closeAllConnections();
  await new Promise((resolve) => idp?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
  // The server's log lines never held the team key either (the banner above them names the built-in simulator's
  // demo key, which here is the team key by the test's own arrangement: the simulator stands in for the platform).
  const lines = output.split('\n').filter((line) => line.startsWith('{'));
  expect(lines.length).toBeGreaterThan(10);
  for (const line of lines) expect(line).not.toContain(TEAM_KEY);
});

/** Everything the browser was sent in `context`: every answer's body, and its cookies at the end. */
function keepAnswers(page: Page): string[] {
  const bodies: string[] = [];
  page.on('response', (response) => {
    void response
      .text()
      .then((text) => bodies.push(text))
      .catch(() => undefined);
  });
  return bodies;
}

/** Signs `who` in through the provider's own login and consent pages; the console's first page then. */
async function signIn(browser: Browser, who: string, path = '/'): Promise<{ context: BrowserContext; page: Page; seen: string[] }> {
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  const seen = keepAnswers(page);
  await page.goto(path);
  await page.locator('input[name="login"]').fill(who);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === origin);
  return { context, page, seen };
}

async function expectNoTeamKey(context: BrowserContext, page: Page, seen: string[]): Promise<void> {
  expect(await page.content()).not.toContain(TEAM_KEY);
  for (const cookie of await context.cookies()) expect(cookie.value).not.toContain(TEAM_KEY);
  expect(seen.length).toBeGreaterThan(0);
  for (const body of seen) expect(body).not.toContain(TEAM_KEY);
}

/** A project of the simulator's seed with computes, as the page lists it. */
async function openProjectWithCompute(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByRole('link', { name: 'blog-backend' }).click();
  await expect(page.getByRole('button', { name: /^Restart compute / }).first()).toBeVisible();
}

let projectPath = '';

test('a viewer reads a history; the restart is disabled with the reason, and the server refuses it with 403 (recorded)', async ({ browser }) => {
  const { context, page, seen } = await signIn(browser, 'vera');
  await expect(page.getByLabel('Signed in as')).toHaveText('Vera Viewer (viewer)');
  await openProjectWithCompute(page);
  projectPath = new URL(page.url()).pathname;
  await expect(page.getByRole('table', { name: /Operations/ })).toBeVisible();
  const restart = page.getByRole('button', { name: /^Restart compute / }).first();
  await expect(restart).toBeDisabled();
  await expect(restart).toHaveAccessibleDescription('Operators can restart computes');

  const endpoint = await page.evaluate(async (projectId) => {
    const answer = await fetch(`/api/v2/projects/${projectId}/endpoints`);
    return ((await answer.json()) as { endpoints: { id: string }[] }).endpoints[0]!.id;
  }, projectPath.split('/')[2]!);
  const refused = await page.evaluate(
    async ({ projectId, endpointId }) => {
      const answer = await fetch(`/api/v2/projects/${projectId}/endpoints/${endpointId}/restart`, { method: 'POST' });
      return { status: answer.status, body: (await answer.json()) as { message: string } };
    },
    { projectId: projectPath.split('/')[2]!, endpointId: endpoint },
  );
  expect(refused).toMatchObject({ status: 403, body: { message: 'Operators can restart computes' } });
  await expectNoTeamKey(context, page, seen);
  await context.close();
});

test('an operator restarts a compute, and the history row says who started it', async ({ browser }) => {
  const { context, page, seen } = await signIn(browser, 'otto', projectPath);
  await expect(page.getByLabel('Signed in as')).toHaveText('Otto Operator (operator)');
  const restart = page.getByRole('button', { name: /^Restart compute / }).first();
  await expect(restart).toBeEnabled();
  await restart.click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Restart', exact: true }).click();
  await expect(
    page
      .getByRole('table', { name: /Operations/ })
      .getByText('Started by Otto Operator')
      .first(),
  ).toBeVisible();
  await expectNoTeamKey(context, page, seen);
  await context.close();
});

test('an admin reads both in the audit trail, filters it by person and exports it', async ({ browser }) => {
  const { context, page, seen } = await signIn(browser, 'ada', '/settings/audit');
  await expect(page.getByRole('heading', { level: 1, name: 'Audit trail' })).toBeVisible();
  const table = page.getByRole('table', { name: /Audit trail/ });
  await expect(table.getByRole('row', { name: /Otto Operator.*Restart compute.*Done \(200\)/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /Vera Viewer.*Refused: Restart compute.*Refused \(403\)/ })).toBeVisible();
  await expectNoSeriousViolations(page);
  // The admin's header (a seventh link, the name and role) keeps one row, and the trail fits beside the watch panel:
  // Result in view, nothing scrolls sideways; on a phone nothing but the links' strip does (support/layout.ts).
  for (const width of [1280, 1400, 390]) {
    await page.setViewportSize({ width, height: 800 });
    if (width > 720) {
      expect((await page.locator('header.topbar').boundingBox())?.height).toBeLessThan(56);
      await expect(table.getByRole('columnheader', { name: 'Result' })).toBeInViewport();
    }
    expect(await layoutProblems(page)).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByLabel('Person').fill('vera');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/[?&]person=vera/);
  await expect(table.getByRole('row', { name: /Refused: Restart compute/ })).toBeVisible();
  await expect(table.getByRole('row', { name: /Otto Operator/ })).toHaveCount(0);

  const csv = await page.request.get('/audit/export.csv');
  expect(csv.status()).toBe(200);
  const lines = (await csv.text()).split('\r\n');
  expect(lines[0]).toContain('When,Email,Person');
  expect(lines.some((line) => line.includes('otto@example.com') && line.includes('Restart compute'))).toBe(true);
  expect(lines.some((line) => line.includes('vera@example.com') && line.includes('Refused: Restart compute'))).toBe(true);
  const ndjson = await page.request.get('/audit/export.ndjson?person=vera');
  const rows = (await ndjson.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { email: string; status: number });
  expect(rows).toEqual([expect.objectContaining({ email: 'vera@example.com', status: 403 })]);
  seen.push(await csv.text(), await ndjson.text());
  await expectNoTeamKey(context, page, seen);
  await context.close();
});

test('a person without a role sees only "No access", and a sign-out', async ({ browser }) => {
  const { context, page } = await signIn(browser, 'nora');
  await expect(page.getByRole('heading', { level: 1, name: 'No access' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expect(page.getByRole('table')).toHaveCount(0);
  await expectNoSeriousViolations(page);
  await context.close();
});
