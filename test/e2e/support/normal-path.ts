import { expect, type Browser, type Page } from '@playwright/test';
import { signInThroughKeyScreen } from './session';

// The console's normal path as a new person takes it (sign in, the projects, a history, a filter, an operation,
// Activity, each settings page), and what must never happen on it: a console error, an uncaught exception, a
// request of the console's own origin that fails or is answered 400 or worse (docs/console.md, "No wrong state").

/** Everything that went wrong on the page, in words, from now on: console errors, uncaught exceptions, failed or refused own requests. */
export function watchForFailures(page: Page, origin: string): string[] {
  const failures: string[] = [];
  const own = (url: string) => url.startsWith(origin);
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => failures.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    // ERR_ABORTED is the page's own doing, not a failure: a navigation (a sign-in form posted while the key screen's
    // icon or a screen's module still loads) or a query the page cancelled.
    if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
    if (own(request.url())) failures.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText ?? 'no reason'})`);
  });
  page.on('response', (response) => {
    if (own(response.url()) && response.status() >= 400) failures.push(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return failures;
}

/**
 * Leaving a page while its requests are out aborts them (the browser reports each as failed): each step waits
 * for what its page shows, then for its requests to have been answered, before the next.
 */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
}

export async function walkNormalPath(page: Page): Promise<void> {
  await page.goto('/');
  await signInThroughKeyScreen(page);
  const projects = page.getByRole('table', { name: /^Projects/ });
  await expect(projects).toBeVisible();
  await settled(page);

  await projects.getByRole('link', { name: 'blog-backend', exact: true }).click();
  const history = page.getByRole('table', { name: /operations/i });
  await expect(history.getByRole('row').nth(1)).toBeVisible();
  const projectPath = new URL(page.url()).pathname;
  await settled(page);

  await page.goto(`${projectPath}?status=finished`);
  await expect(page.getByText(/matches|searched/i).first()).toBeVisible();
  await expect(history.getByRole('row').nth(1)).toBeVisible();
  await settled(page);

  await history.getByRole('row').nth(1).getByRole('link').first().click();
  await expect(page.getByTestId('operation-status')).toBeVisible();
  await settled(page);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  await expect(
    page
      .getByRole('table', { name: /activity across projects/i })
      .getByRole('row')
      .nth(1),
  ).toBeVisible({ timeout: 15_000 });
  await settled(page);

  await page.goto('/settings/api-keys');
  await expect(page.getByRole('heading', { level: 1, name: /API keys/ })).toBeVisible();
  await expect(page.getByRole('table').first()).toBeVisible();
  await settled(page);
  await page.goto('/settings/archive');
  await expect(page.getByRole('heading', { level: 1, name: 'History archive' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Keep history' })).toBeVisible();
  await settled(page);
  await page.goto('/settings/notifications');
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Webhook URL' })).toBeVisible();
  await settled(page);
}

/** The normal path walked by a new person (a fresh context, signed out): whatever went wrong on it, in words (none expected). */
export async function failuresOnNormalPath(browser: Browser, baseURL: string | undefined): Promise<string[]> {
  if (!baseURL) throw new Error('baseURL is not set');
  const context = await browser.newContext({ baseURL });
  try {
    const page = await context.newPage();
    const failures = watchForFailures(page, baseURL);
    await walkNormalPath(page);
    return failures;
  } finally {
    await context.close();
  }
}
