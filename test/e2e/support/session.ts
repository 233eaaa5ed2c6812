import { expect, type BrowserContext, type Page } from '@playwright/test';
import { E2E_API_KEY } from '../../../playwright.config';

export { E2E_API_KEY };

/** Where the console keeps the key for the tab (src/features/session/session-store.ts). */
export const SESSION_KEY_ITEM = 'ops-console.api-key';

/** Signs in as a person does: types the key into the key screen and presses Enter. */
export async function signInThroughKeyScreen(page: Page, apiKey: string = E2E_API_KEY): Promise<void> {
  const field = page.getByLabel(/API key/, { exact: false }).and(page.locator('input[type="password"]'));
  await expect(field).toBeVisible();
  await field.fill(apiKey);
  await field.press('Enter');
  await expect(field).toBeHidden();
}

/** Starts the context's pages already signed in, for tests about what comes after the key screen. */
export async function holdKey(context: BrowserContext, apiKey: string = E2E_API_KEY): Promise<void> {
  await context.addInitScript(
    ([item, key]) => {
      if (window.sessionStorage.getItem(item) === null) window.sessionStorage.setItem(item, key);
    },
    [SESSION_KEY_ITEM, apiKey] as const,
  );
}
