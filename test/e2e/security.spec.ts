import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createPersonalKeyOnScreen } from './support/api-keys';
import { ControlApi, type ListedProject } from './support/api';
import { clearFaults, setFaults } from './support/faults';
import { operationsTable, showProjectInList } from './support/screens';
import { pagePlaces, placesHolding, SessionRecorder, type Place } from './support/security';
import { E2E_API_KEY, sessionCookies, signInThroughKeyScreen } from './support/session';

// docs/session-and-security.md in a real browser against `npm start`: the key is posted once, in the body of the sign-in
// request, and from then on lives on the console's server alone (which adds it as the API's
// Authorization header); the browser never sends an Authorization header, and the key is never in a
// URL, another header or body, a console line, the page or its data block, history, a storage,
// IndexedDB, document.cookie or the cookie's value, an error message or an exported file.

/** A project whose history is longer than one page, so "Load more" has something to load. */
async function projectWithLongHistory(api: ControlApi): Promise<ListedProject> {
  for (const project of await api.allProjects()) {
    if ((await api.newestOperations(project.id, 101)).length > 100) return project;
  }
  throw new Error('the demo seed has no project with more than 100 operations');
}

/** Every operation of the project in a status no one knows, so each row is in flight and has its Watch. */
async function keepOperationsInFlight(request: APIRequestContext, projectId: string): Promise<void> {
  await setFaults(request, [{ fault: { type: 'unknown-values', status: 'e2e_unknown' }, method: 'GET', path: `/projects/${projectId}/operations/**` }]);
}

test.afterEach(({ request }) => clearFaults(request));

/** The sign-in post's body: the one place a key may travel, once, on its way to the server. */
const isSignInBody = (where: string) => /^request #\d+ POST http:\/\/[^/]+\/session: body$/.test(where);

/** Where `secret` is in the page right now, leaving out the places it is allowed to be. */
async function leaksInPage(page: Page, moment: string, secret: string, allowed: readonly string[] = []): Promise<string[]> {
  const { places } = await pagePlaces(page, moment);
  return placesHolding(places, secret).filter((where) => !allowed.some((ok) => where === `${moment}: ${ok}`));
}

/** The requests that posted `key` as the key to sign in with (the sign-in post is the one place it may travel). */
async function signInsWith(recorder: SessionRecorder, key: string): Promise<string[]> {
  const posted = (body: string): unknown => {
    try {
      return (JSON.parse(body) as { key?: unknown }).key;
    } catch {
      return undefined;
    }
  };
  return (await recorder.requests()).filter((r) => posted(r.body) === key).map((r) => `${r.method} ${new URL(r.url).pathname}`);
}

test('the key is posted once and then rests only on the server, through every screen and sign-out', async ({ page, context, request }) => {
  test.setTimeout(90_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const project = await projectWithLongHistory(api);
  const recorder = new SessionRecorder(context);
  const leaks: string[] = [];
  const check = async (moment: string) => leaks.push(...(await leaksInPage(page, moment, E2E_API_KEY)));

  await page.goto('/');
  await check('key screen');
  // A rejected key first: its error names no key, and nothing keeps it.
  const wrongKey = `${E2E_API_KEY}-typo`;
  const field = page.getByLabel(/API key/).and(page.locator('input[type="password"]'));
  await field.fill(wrongKey);
  await field.press('Enter');
  await expect(page.getByRole('alert')).toContainText('rejected');
  await field.fill('');
  leaks.push(...(await leaksInPage(page, 'rejected key', wrongKey)));
  await signInThroughKeyScreen(page);
  // Held by the server: the browser has an HttpOnly cookie that scripts cannot read, sealed so it does not hold the key either.
  const [cookie] = await sessionCookies(context);
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: true, path: '/', expires: -1 });
  expect(await page.evaluate(() => document.cookie)).toBe('');
  const data = await page.locator('script#ops-console-data').textContent();
  expect(JSON.parse(data ?? '')).toMatchObject({ session: { signedIn: false } });
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  expect(JSON.parse((await page.locator('script#ops-console-data').textContent()) ?? '')).toMatchObject({
    session: { signedIn: true, fingerprint: expect.stringMatching(/^[\w-]{32}$/) as unknown, keyKind: 'personal' },
  });

  // Projects, then a long history and its next page.
  await keepOperationsInFlight(request, project.id);
  const link = await showProjectInList(page, project);
  await check('projects');
  await link.click();
  const table = operationsTable(page);
  await expect(table.getByRole('row')).toHaveCount(101);
  await check('history');
  await page.getByRole('button', { name: /Load more/ }).click();
  await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(101);
  await check('history after Load more');

  // Export: both files, read back from disk.
  const exportGroup = page.getByRole('group', { name: 'Export loaded operations' });
  for (const format of ['CSV', 'JSON']) {
    const [download] = await Promise.all([page.waitForEvent('download'), exportGroup.getByRole('button', { name: `Export ${format}` }).click()]);
    const text = await readFile(await download.path(), 'utf8');
    expect(download.suggestedFilename()).toMatch(new RegExp(`^operations-.*\\.${format.toLowerCase()}$`));
    expect(text).toContain((await api.newestOperations(project.id, 1))[0]!.id);
    recorder.downloads.push({ where: `exported ${download.suggestedFilename()}`, text });
  }

  // The watch tray, then an operation's detail.
  const firstRow = table.getByRole('row').nth(1);
  await firstRow.getByRole('button', { name: /^Watch / }).click();
  const tray = page.getByRole('complementary', { name: 'Watched operations' });
  await expect(tray.getByRole('listitem').first()).toBeVisible();
  await check('watch tray');
  await firstRow.getByRole('link').first().click();
  await expect(page.getByRole('main').getByTestId('operation-status')).toBeVisible();
  await check('operation detail');

  // A request that fails: an operation that does not exist, by deep link.
  await page.goto(`/projects/${encodeURIComponent(project.id)}/operations/no-such-operation`);
  await expect(page.getByRole('alert').filter({ hasText: 'Could not load this operation.' })).toBeVisible();
  await check('failed request');

  // API keys: create one, read its once-only secret, close the dialog, revoke it.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: /API keys/ })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await check('API keys');
  const name = `e2e-security-${Date.now().toString(36)}`;
  const dialog = await createPersonalKeyOnScreen(page, name);
  const secret = await dialog.getByRole('textbox', { name: 'Secret' }).inputValue();
  expect(secret).toMatch(/^\S{16,}$/);
  await check('secret dialog open');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  await check('secret dialog closed');
  expect(await leaksInPage(page, 'secret dialog closed', secret)).toEqual([]);
  const personalKeys = page.getByRole('region', { name: 'Personal keys' });
  await personalKeys.getByRole('button', { name: `Revoke key ${name}` }).click();
  await page
    .getByRole('alertdialog', { name: `Revoke key “${name}”?` })
    .getByRole('button', { name: 'Revoke', exact: true })
    .click();
  await expect(personalKeys.getByRole('rowheader', { name, exact: true })).toBeHidden();
  await check('key revoked');
  expect(await leaksInPage(page, 'key revoked', secret)).toEqual([]);

  // Every history entry of the session, walked back to the first page of the console: each one's URL and state.
  const origin = new URL(page.url()).origin;
  const steps = await page.evaluate(() => window.history.length);
  let walked = 0;
  for (; walked < steps; walked++) {
    await page.goBack();
    // The entry before the console's first page is the tab's blank start.
    if (new URL(page.url()).origin !== origin) break;
    await expect(page.getByRole('main')).toBeVisible();
    await check(`history entry -${walked + 1} (${new URL(page.url()).pathname})`);
  }
  expect(walked).toBeGreaterThanOrEqual(4);
  await page.goto('/settings/api-keys');

  // Sign out: the server ends the session and the cookie is gone.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'You signed out.' })).toBeVisible();
  await expect.poll(() => sessionCookies(context)).toEqual([]);
  await check('signed out');
  expect(await leaksInPage(page, 'signed out', secret)).toEqual([]);

  const { places, authorizations } = await recorder.trafficPlaces();
  expect(leaks).toEqual([]);
  expect(placesHolding(places, E2E_API_KEY).filter((where) => !isSignInBody(where))).toEqual([]);
  expect(placesHolding(places, secret)).toEqual([]);
  expect(placesHolding(places, wrongKey).filter((where) => !isSignInBody(where))).toEqual([]);
  // The page never sends a key of its own: the server adds it. Each key typed was posted once, to the server.
  expect(authorizations).toEqual([]);
  expect(await signInsWith(recorder, E2E_API_KEY)).toEqual(['POST /session']);
  expect(await signInsWith(recorder, wrongKey)).toEqual(['POST /session']);
  expect(places.filter((place: Place) => place.where.startsWith('exported'))).toHaveLength(2);
});

test('"Remember on this device" makes the session cookie last 30 days, a new tab opens signed in either way, and sign-out ends both', async ({
  page,
  context,
}) => {
  const recorder = new SessionRecorder(context);
  await page.goto('/');
  const field = page.getByLabel(/API key/).and(page.locator('input[type="password"]'));
  await field.fill(E2E_API_KEY);
  await page.getByRole('checkbox', { name: 'Remember on this device' }).check();
  await field.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  const [cookie] = await sessionCookies(context);
  const days = ((cookie?.expires ?? 0) * 1000 - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(29.9);
  expect(days).toBeLessThanOrEqual(30);
  expect(await leaksInPage(page, 'remembered', E2E_API_KEY)).toEqual([]);

  // A new tab of the same browser starts signed in: the cookie comes with its first request.
  const second = await context.newPage();
  await second.goto('/');
  await expect(second.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
  expect(await leaksInPage(second, 'second tab', E2E_API_KEY)).toEqual([]);
  await second.close();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'You signed out.' })).toBeVisible();
  await expect.poll(() => sessionCookies(context)).toEqual([]);
  expect(await leaksInPage(page, 'signed out', E2E_API_KEY)).toEqual([]);
  await page.reload();
  await expect(page.getByLabel(/API key/).and(page.locator('input[type="password"]'))).toBeVisible();
  expect(await leaksInPage(page, 'reloaded after sign-out', E2E_API_KEY)).toEqual([]);

  const { places } = await recorder.trafficPlaces();
  expect(placesHolding(places, E2E_API_KEY).filter((where) => !isSignInBody(where))).toEqual([]);
});

interface Violation {
  directive: string;
  blocked: string;
  sample: string;
  source: string;
}

/** The directives of a CSP header, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name!.toLowerCase(), values]),
  );
}

test('every screen runs under the served CSP without a single violation, and the CSP is enforced', async ({ page, context, request }) => {
  test.setTimeout(60_000);
  const api = new ControlApi(request, E2E_API_KEY);
  const project = await projectWithLongHistory(api);
  // Reported to the test as they happen, so a violation on a document navigated away from still counts.
  const seen: Violation[] = [];
  await context.exposeFunction('reportCspViolation', (violation: Violation) => void seen.push(violation));
  await context.addInitScript(() => {
    const report = (window as unknown as { reportCspViolation: (v: Violation) => Promise<void> }).reportCspViolation;
    document.addEventListener('securitypolicyviolation', (event) => {
      void report({ directive: event.effectiveDirective, blocked: event.blockedURI, sample: event.sample, source: `${event.sourceFile}:${event.lineNumber}` });
    });
  });
  const cspConsole: string[] = [];
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) cspConsole.push(message.text());
  });

  /** Loads a document and checks the headers it came with. */
  const open = async (path: string) => {
    const response = await page.goto(path);
    expect(response, path).not.toBeNull();
    const headers = response!.headers();
    expect(headers['content-security-policy-report-only'], path).toBeUndefined();
    const policy = directives(headers['content-security-policy'] ?? '');
    expect(policy.get('default-src'), path).toEqual(["'self'"]);
    expect(policy.get('connect-src'), path).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors'), path).toEqual(["'none'"]);
    expect(policy.get('script-src') ?? policy.get('default-src'), path).not.toContain("'unsafe-inline'");
    expect(headers['x-content-type-options'], path).toBe('nosniff');
    expect(headers['referrer-policy'], path).toBe('no-referrer');
  };

  await open('/');
  await signInThroughKeyScreen(page);
  await showProjectInList(page, project);
  await keepOperationsInFlight(request, project.id);

  await open(`/projects/${encodeURIComponent(project.id)}`);
  const table = operationsTable(page);
  await expect(table.getByRole('row')).toHaveCount(101);
  await page.getByRole('button', { name: /Load more/ }).click();
  await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(101);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(await download.failure()).toBeNull();
  const firstRow = table.getByRole('row').nth(1);
  await firstRow.getByRole('button', { name: /^Watch / }).click();
  await expect(page.getByRole('complementary', { name: 'Watched operations' }).getByRole('listitem').first()).toBeVisible();
  const detailHref = await firstRow.getByRole('link').first().getAttribute('href');

  await open(detailHref!);
  await expect(page.getByRole('main').getByTestId('operation-status')).toBeVisible();
  await open(`/projects/${encodeURIComponent(project.id)}/operations/no-such-operation`);
  await expect(page.getByRole('alert').filter({ hasText: 'Could not load this operation.' })).toBeVisible();

  await open('/settings/api-keys');
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  const name = `e2e-csp-${Date.now().toString(36)}`;
  const dialog = await createPersonalKeyOnScreen(page, name);
  await dialog.getByRole('button', { name: 'Done' }).click();
  const personalKeys = page.getByRole('region', { name: 'Personal keys' });
  await personalKeys.getByRole('button', { name: `Revoke key ${name}` }).click();
  await page
    .getByRole('alertdialog', { name: `Revoke key “${name}”?` })
    .getByRole('button', { name: 'Revoke', exact: true })
    .click();
  await expect(personalKeys.getByRole('rowheader', { name, exact: true })).toBeHidden();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'You signed out.' })).toBeVisible();

  expect(seen).toEqual([]);
  expect(cspConsole).toEqual([]);

  // Enforced, not report-only: an injected inline script and inline style are refused, and reported.
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.inlineScriptRan = true;';
    document.head.append(script);
    const style = document.createElement('style');
    style.textContent = 'body { margin-left: 123px; }';
    document.head.append(style);
    // An allowed inline script runs as it is appended, and a style applies to the next computed style: no wait.
    return { script: 'inlineScriptRan' in window, style: getComputedStyle(document.body).marginLeft === '123px' };
  });
  expect(ran).toEqual({ script: false, style: false });
  await expect.poll(() => seen.map((v) => `${v.directive} ${v.blocked}`).sort()).toEqual(['script-src-elem inline', 'style-src-elem inline']);
});
