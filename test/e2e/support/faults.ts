import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { FaultRule } from '../../../sim/faults';

// The simulator's fault control (sim/faults.ts), mounted by `npm start` because playwright.config.ts sets
// SIM_FAULTS=1. The server is shared by every spec: whoever sets faults clears them after each test.

const CONTROL = '/__sim/faults';

export type { FaultRule };

export async function setFaults(request: APIRequestContext, rules: FaultRule[]): Promise<void> {
  const response = await request.put(CONTROL, { data: { rules }, headers: { 'content-type': 'application/json' } });
  expect(response.status(), `PUT ${CONTROL}: ${await response.text()}`).toBe(200);
}

export async function clearFaults(request: APIRequestContext): Promise<void> {
  const response = await request.delete(CONTROL);
  expect(response.status(), `DELETE ${CONTROL}`).toBe(200);
}

export interface ApiExchange {
  url: string;
  method: string;
  /** When the page sent it, and when its answer (or failure) arrived, in ms since the epoch. */
  sentAt: number;
  answeredAt?: number;
  status?: number;
  failed?: boolean;
}

/** Every /api/v2 request the page makes, with timings, to check retries and their pacing without sleeps. */
export function recordApiTraffic(page: Page): ApiExchange[] {
  const log: ApiExchange[] = [];
  const byRequest = new Map<object, ApiExchange>();
  page.on('request', (req) => {
    if (!req.url().includes('/api/v2/')) return;
    const entry: ApiExchange = { url: req.url(), method: req.method(), sentAt: Date.now() };
    byRequest.set(req, entry);
    log.push(entry);
  });
  page.on('response', (res) => {
    const entry = byRequest.get(res.request());
    if (!entry) return;
    entry.answeredAt = Date.now();
    // The browser's own clock for both ends when it has them: on a busy machine the events reach this
    // process late and unevenly, which would shorten or stretch the gaps the pacing tests measure.
    const timing = res.request().timing();
    if (timing.startTime > 0 && timing.responseStart >= 0) {
      entry.sentAt = timing.startTime;
      entry.answeredAt = timing.startTime + timing.responseStart;
    }
    entry.status = res.status();
  });
  page.on('requestfailed', (req) => {
    const entry = byRequest.get(req);
    if (!entry) return;
    entry.answeredAt = Date.now();
    entry.failed = true;
  });
  return log;
}

/**
 * Errors the page must never have: uncaught exceptions, and console errors other than the browser's own
 * line for each failed request ("Failed to load resource …"), which the faults cause on purpose.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (/^Failed to load resource\b/.test(message.text())) return;
    errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/** What a tab does when a person comes back to it: the browser says the page is visible again. */
export async function returnToTab(page: Page): Promise<void> {
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange', { bubbles: true })));
}
