import { expect, type Locator, type Page } from '@playwright/test';

/** Creates a personal key through the API keys screen; returns the dialog that shows its secret once. */
export async function createPersonalKeyOnScreen(page: Page, name: string): Promise<Locator> {
  const form = page.getByRole('region', { name: 'Create a key' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  const keyFor = form.getByRole('combobox', { name: 'Key for' });
  if (await keyFor.isVisible()) await keyFor.selectOption({ label: 'Personal key (yours)' });
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Key “${name}” created` });
  await expect(dialog).toBeVisible();
  return dialog;
}
