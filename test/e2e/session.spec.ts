import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../bench/server';
import { expect, test, type Page, type Response } from '@playwright/test';
import { ControlApi } from './support/api';
import { clearFaults, setFaults } from './support/faults';
import { E2E_API_KEY, holdKey, sessionCookies, signInThroughKeyScreen } from './support/session';

// The session held by the console's server, as a browser meets it: tabs that sign out together and
// open signed in, a link from another site that still opens signed in, cross-site writes refused,
// revoked keys ending the session, the key screen's edges, and the production serving of assets.

const keyField = (page: Page) => page.getByLabel(/API key/).and(page.locator('input[type="password"]'));
const projectsHeading = (page: Page) => page.getByRole('heading', { level: 1, name: 'Projects' });

/** Pages of another site, answered by the browser itself (nothing listens there). */
const ELSEWHERE = 'http://elsewhere.test';

test.afterEach(async ({ request }) => {
  await clearFaults(request);
});

test('signing out in one tab signs out every open tab at once, and a new tab opens signed in', async ({ context }) => {
  const first = await context.newPage();
  await first.goto('/');
  await signInThroughKeyScreen(first);
  await expect(projectsHeading(first)).toBeVisible();

  const second = await context.newPage();
  await second.goto('/settings/api-keys');
  await expect(second.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();

  await first.getByRole('button', { name: 'Sign out' }).click();
  await expect(first.getByRole('status').filter({ hasText: 'You signed out.' })).toBeVisible();
  // No reload, no request of its own: the other tab heard it.
  await expect(second.getByRole('status').filter({ hasText: 'You signed out in another tab.' })).toBeVisible();
  await expect(keyField(second)).toBeVisible();
  expect(second.url()).toMatch(/\/settings\/api-keys$/);
  await expect.poll(() => sessionCookies(context)).toEqual([]);

  // Signing in again in the second tab brings the first one back too.
  await signInThroughKeyScreen(second);
  await expect(second.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await expect(projectsHeading(first)).toBeVisible();
});

test('a link from another site opens the deep link signed in, after one same-origin bounce', async ({ page, context, baseURL, request }) => {
  await holdKey(context);
  const api = new ControlApi(request, E2E_API_KEY);
  const [project] = await api.allProjects();
  const target = `${baseURL}/projects/${encodeURIComponent(project!.id)}`;
  await context.route(`${ELSEWHERE}/**`, (route) =>
    route.fulfill({ contentType: 'text/html', body: `<!doctype html><title>Chat</title><a href="${target}">the project</a>` }),
  );
  const documents: Promise<{ url: string; cookie: boolean }>[] = [];
  page.on('request', (req) => {
    if (req.resourceType() === 'document' && req.url().startsWith(baseURL!)) {
      documents.push(req.allHeaders().then((headers) => ({ url: req.url(), cookie: (headers.cookie ?? '').includes('ops_session') })));
    }
  });

  await page.goto(`${ELSEWHERE}/chat`);
  await page.getByRole('link', { name: 'the project' }).click();

  await expect(page.getByRole('heading', { level: 1, name: project!.name })).toBeVisible();
  expect(page.url()).toBe(target);
  // The link's own request came without the SameSite=Strict cookie; the bounce's came with it.
  expect(await Promise.all(documents)).toEqual([
    { url: target, cookie: false },
    { url: target, cookie: true },
  ]);
});

test('a cross-site write is refused with 403 and reaches no API, even with the session cookie', async ({ page, context, baseURL, request }) => {
  await holdKey(context);
  const api = new ControlApi(request, E2E_API_KEY);
  const keysBefore = (await api.get<unknown[]>('/api_keys')).length;

  // A real form on another site posting to the console: SameSite=Strict keeps the cookie home, and the server refuses it anyway.
  await context.route(`${ELSEWHERE}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><form method="post" action="${baseURL}/api/v2/api_keys" enctype="text/plain"><input name='{"key_name":"csrf","x":"' value='"}'><button>Win a prize</button></form>`,
    }),
  );
  await page.goto(`${ELSEWHERE}/prize`);
  const [answer] = await Promise.all([page.waitForResponse(`${baseURL}/api/v2/api_keys`), page.getByRole('button', { name: 'Win a prize' }).click()]);
  expect(answer.status()).toBe(403);
  expect((await answer.request().allHeaders()).origin).toBe(ELSEWHERE);

  // The same write carrying the session cookie, as a browser without SameSite would send it.
  const refusals: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: ELSEWHERE }];
  for (const headers of refusals) {
    const response = await context.request.post('/api/v2/api_keys', { data: { key_name: 'csrf-with-cookie' }, headers });
    expect(response.status(), JSON.stringify(headers)).toBe(403);
  }
  expect((await api.get<unknown[]>('/api_keys')).length).toBe(keysBefore);
  // The cookie itself is untouched: a refused write does not sign anyone out.
  expect(await sessionCookies(context)).toHaveLength(1);
});

test('a key revoked elsewhere ends the session: the key screen with an alert, and the cookie gone', async ({ page, context, request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const created = await api.post<{ id: number; key: string }>('/api_keys', { key_name: `e2e-revoked-${Date.now().toString(36)}` });
  await holdKey(context, created.key);
  // A signed-in page that asks the API nothing, so the revocation is met by the next request and no earlier.
  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();

  await api.delete(`/api_keys/${created.id}`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();

  await expect(page.getByRole('alert')).toContainText('Your API key was rejected (invalid or revoked)');
  await expect(keyField(page)).toBeVisible();
  await expect.poll(() => sessionCookies(context)).toEqual([]);
});

test('the key screen explains a key with a non-ASCII character, and a check that hangs can be cancelled', async ({ page, request }) => {
  await page.goto('/projects/somewhere');
  await keyField(page).fill('clé-démo');
  await keyField(page).press('Enter');
  await expect(page.getByRole('alert')).toContainText('contains “é” (U+00E9)');
  await expect(page.getByRole('alert')).not.toContainText(/could not reach/i);

  await setFaults(request, [{ fault: { type: 'latency', ms: 60_000 }, path: '/auth' }]);
  await keyField(page).fill(E2E_API_KEY);
  await keyField(page).press('Enter');
  await expect(page.getByRole('button', { name: 'Checking key…' })).toBeDisabled();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('alert')).toHaveText('Cancelled: the key was not checked.');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();

  await clearFaults(request);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('main').getByRole('heading', { level: 1 })).not.toHaveText('Ops Console');
  expect(new URL(page.url()).pathname).toBe('/projects/somewhere');
});

test('assets come back precompressed and immutable; pages carrying the session are never cached', async ({ page, context }) => {
  await holdKey(context);
  const assets: Promise<{ url: string; asked: string; encoding: string | undefined; cache: string | undefined; bytes: number }>[] = [];
  const onResponse = (response: Response) => {
    if (new URL(response.url()).pathname.startsWith('/assets/') && response.url().endsWith('.js')) {
      assets.push(
        Promise.all([response.request().allHeaders(), response.allHeaders()]).then(([sent, got]) => ({
          url: response.url(),
          asked: sent['accept-encoding'] ?? '',
          encoding: got['content-encoding'],
          cache: got['cache-control'],
          bytes: Number(got['content-length'] ?? Infinity),
        })),
      );
    }
  };
  page.on('response', onResponse);
  const document = await page.goto('/');
  await expect(projectsHeading(page)).toBeVisible();
  // Every chunk the page asks for is in; no later one is read after the page has closed (its headers would be gone).
  await page.waitForLoadState('networkidle');
  page.off('response', onResponse);

  expect((await document?.allHeaders())?.['cache-control']).toBe('no-store');
  const served = await Promise.all(assets);
  expect(served.length).toBeGreaterThan(2);
  for (const asset of served) {
    // Chromium asks for brotli over https only; on http it gets the gzip copy. A chunk of a few dozen bytes has no
    // compressed copy (scripts/precompress.ts keeps one only where it is smaller) and comes as it is.
    const expected = asset.encoding === undefined && asset.bytes < 200 ? undefined : /\bbr\b/.test(asset.asked) ? 'br' : 'gzip';
    expect(asset, asset.url).toMatchObject({ encoding: expected, cache: 'public, max-age=31536000, immutable' });
  }
  expect(served.filter((asset) => asset.encoding !== undefined).length).toBeGreaterThan(2);
});

test('with API_URL unreachable, the key screen and the server log both name the cause, and neither the key', async ({ page }) => {
  // A second server of the same build (npm start built it), forwarding to a port where nothing listens.
  const deadApi = `http://127.0.0.1:${await freePort()}/api/v2`;
  const child: ChildProcess = spawn(process.execPath, ['dist/server/main.js'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', API_URL: deadApi },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await expect.poll(() => /Ops Console: (http:\/\/\S+)/.exec(stdout)?.[1], { timeout: 20_000 }).toBeTruthy();
    const url = /Ops Console: (http:\/\/\S+)/.exec(stdout)![1]!;
    await page.goto(url);
    await keyField(page).fill(E2E_API_KEY);
    await keyField(page).press('Enter');

    const cause = /Could not reach the API at 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)\./;
    await expect(page.getByRole('alert')).toContainText(cause);
    await expect(page.getByRole('alert')).not.toContainText('HTTP 502');
    // The server's log: JSON lines on stdout (docs/operations.md), the cause in the API outage's line.
    await expect.poll(() => stdout).toMatch(cause);
    expect(
      stdout
        .split('\n')
        .filter((line) => cause.test(line))
        .map((line) => JSON.parse(line) as { event: string }),
    ).toEqual([expect.objectContaining({ event: 'api.unreachable' })]);
    expect(`${stdout}\n${stderr}`).not.toContain(E2E_API_KEY);
    await expect(page.getByRole('alert')).not.toContainText(E2E_API_KEY);
  } finally {
    child.kill('SIGTERM');
  }
});
