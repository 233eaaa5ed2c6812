import { expect, test, type Page } from '@playwright/test';
import { createPersonalKeyOnScreen } from './support/api-keys';
import { expectNoSeriousViolations } from './support/axe';
import { E2E_API_KEY, sessionCookies, signInThroughKeyScreen } from './support/session';

// Copy writes to the real clipboard; the test reads it back.
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** What the API answers a request made from the page with `apiKey` as the bearer. */
function statusWithKey(page: Page, apiKey: string): Promise<number> {
  return page.evaluate(async (key) => {
    const response = await fetch('/api/v2/projects', { headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } });
    return response.status;
  }, apiKey);
}

/** Creates a personal key through the screen and returns its secret, read from the once-only dialog. */
async function createPersonalKey(page: Page, name: string): Promise<string> {
  const dialog = await createPersonalKeyOnScreen(page, name);
  await expect(dialog).toContainText('you will not see it again');
  return dialog.getByRole('textbox', { name: 'Secret' }).inputValue();
}

const personalKeys = (page: Page) => page.getByRole('region', { name: 'Personal keys' });

test('create a key, copy and use its secret, see it listed, reload without it, revoke it', async ({ page }) => {
  const name = `e2e-ui-${Date.now()}`;
  await page.goto('/');
  await signInThroughKeyScreen(page, E2E_API_KEY);
  await page.goto('/settings/api-keys');
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await expect(page.getByRole('region', { name: /Signed in with: Personal key/ })).toBeVisible();

  const secret = await createPersonalKey(page, name);
  expect(secret).toMatch(/^\S{16,}$/);
  const dialog = page.getByRole('dialog', { name: `Key “${name}” created` });
  await expect(dialog.getByRole('button', { name: 'Copy' })).toBeFocused();
  await expectNoSeriousViolations(page);
  await dialog.getByRole('button', { name: 'Copy' }).click();
  await expect(dialog.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  expect(await statusWithKey(page, secret)).toBe(200);

  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  await expect(personalKeys(page).getByRole('rowheader', { name, exact: true })).toBeVisible();

  await page.reload();
  await expect(personalKeys(page).getByRole('rowheader', { name, exact: true })).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  expect(page.url()).not.toContain(secret);
  const stored = await page.evaluate(() => JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)]));
  expect(stored).not.toContain(secret);

  // Keyboard: the confirmation opens on Enter, Escape closes it and focus goes back to the button.
  const revoke = personalKeys(page).getByRole('button', { name: `Revoke key ${name}` });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('alertdialog', { name: `Revoke key “${name}”?` });
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await expectNoSeriousViolations(page);
  await page.keyboard.press('Escape');
  await expect(confirm).toBeHidden();
  await expect(revoke).toBeFocused();

  await revoke.click();
  await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(personalKeys(page).getByRole('rowheader', { name, exact: true })).toBeHidden();
  await expect(confirm).toBeHidden();
  expect(await statusWithKey(page, secret)).toBe(401);
  // The console's own key was not the one revoked: still signed in.
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
});

test('revoking the key the console is signed in with signs it out to the key screen with a message', async ({ page, browser, baseURL }) => {
  const name = `e2e-self-${Date.now()}`;
  await page.goto('/');
  await signInThroughKeyScreen(page, E2E_API_KEY);
  await page.goto('/settings/api-keys');
  const secret = await createPersonalKey(page, name);
  await page
    .getByRole('dialog', { name: `Key “${name}” created` })
    .getByRole('button', { name: 'Done' })
    .click();

  // A fresh browser context: nothing shared with the session that created the key.
  const context = await browser.newContext({ baseURL });
  try {
    const own = await context.newPage();
    await own.goto('/settings/api-keys');
    await signInThroughKeyScreen(own, secret);
    await expect(own.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();

    await personalKeys(own)
      .getByRole('button', { name: `Revoke key ${name}` })
      .click();
    await own.getByRole('alertdialog').getByRole('button', { name: 'Revoke', exact: true }).click();

    await expect(own.getByText(/You revoked the API key this console was using/)).toBeVisible();
    await expect(own.getByLabel(/API key/).and(own.locator('input[type="password"]'))).toBeVisible();
    // The server ended the session: its cookie is gone from the browser.
    expect(await sessionCookies(context)).toEqual([]);
    expect(await statusWithKey(own, secret)).toBe(401);
  } finally {
    await context.close();
  }

  // The session that created it is untouched, and the key is gone from its list.
  await page.reload();
  await expect(page.getByRole('region', { name: /Signed in with: Personal key/ })).toBeVisible();
  await expect(personalKeys(page).getByRole('table')).toBeVisible();
  await expect(personalKeys(page).getByRole('rowheader', { name, exact: true })).toBeHidden();
});
