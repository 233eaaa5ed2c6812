import { chromium, expect, test } from '@playwright/test';
import { TEST_CHROMIUM } from '../../playwright.config';

// DNS rebinding in a real browser: a page of another site whose name resolves to 127.0.0.1 (here by
// Chromium's host resolver rules, as a rebinding DNS server would make it) opens the console under that
// name and tries the fault control and the API. The console answers only its own names: the person sees
// a plain "does not answer for that host name", and nothing is changed.

const REBOUND = 'rebound.example';

test('a page under another host name gets the plain refusal and changes nothing', async ({ baseURL, request }) => {
  const port = new URL(baseURL ?? '').port;
  const before: unknown = await (await request.get('/__sim/faults')).json();
  const browser = await chromium.launch({
    executablePath: TEST_CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`],
  });
  try {
    const page = await browser.newPage();
    const response = await page.goto(`http://${REBOUND}:${port}/`);

    expect(response?.status()).toBe(421);
    await expect(page.getByText('This console does not answer for that host name')).toBeVisible();
    // The attacker's script, same-origin with the rebound name: neither the fault control nor the API answers it.
    const statuses = await page.evaluate(async () => {
      const put = await fetch('/__sim/faults', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"rules":[{"fault":{"type":"status","status":503}}]}',
      });
      const api = await fetch('/api/v2/projects');
      return [put.status, api.status];
    });
    expect(statuses).toEqual([421, 421]);
    expect(await (await request.get('/__sim/faults')).json()).toEqual(before);
  } finally {
    await browser.close();
  }
});

test('the console’s own name still opens it, and Chromium takes every header it sends', async ({ page }) => {
  const complaints: string[] = [];
  page.on('console', (message) => {
    if (/Permissions-Policy|Strict-Transport|Cross-Origin/i.test(message.text())) complaints.push(message.text());
  });
  const response = await page.goto('/');

  expect(response?.status()).toBe(200);
  expect(response?.headers()['permissions-policy']).toContain('camera=()');
  expect(response?.headers()['cross-origin-resource-policy']).toBe('same-origin');
  await expect(page.getByLabel(/API key/).and(page.locator('input[type="password"]'))).toBeVisible();
  expect(complaints).toEqual([]);
});
