import { expect, type BrowserContext, type Cookie, type Page } from '@playwright/test';
import { E2E_API_KEY } from '../../../playwright.config';

export { E2E_API_KEY };

/** The console server's session cookie (server/session/session-cookie.ts): `__Host-` on loopback and https. */
export const SESSION_COOKIE = '__Host-ops_session';

/** Signs in as a person does: types the key into the key screen and presses Enter. */
export async function signInThroughKeyScreen(page: Page, apiKey: string = E2E_API_KEY): Promise<void> {
  const field = page.getByLabel(/API key/, { exact: false }).and(page.locator('input[type="password"]'));
  await expect(field).toBeVisible();
  await field.fill(apiKey);
  await field.press('Enter');
  await expect(field).toBeHidden();
}

/**
 * Starts the context's pages already signed in, for tests about what comes after the key screen: the
 * key is posted to the console's server once, and the context keeps the session cookie it answers with.
 */
export async function holdKey(context: BrowserContext, apiKey: string = E2E_API_KEY): Promise<void> {
  const response = await context.request.post('/session', { data: { key: apiKey, remember: false } });
  expect(response.status(), await response.text()).toBe(200);
}

/** The session cookies the browser holds for the console. */
export async function sessionCookies(context: BrowserContext): Promise<Cookie[]> {
  return (await context.cookies()).filter((cookie) => cookie.name === SESSION_COOKIE || cookie.name === 'ops_session');
}
