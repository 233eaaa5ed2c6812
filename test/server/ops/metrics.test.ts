import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRefusal } from '../../../server/ops/ops-routes';
import { startTestServer, type TestServer } from '../start-test-server';

// docs/operations.md, "Metrics": /metrics in Prometheus's text format, for whoever bears METRICS_TOKEN (else
// 401 with the console's error body); without a token set, for this machine's own clients only. The figures:
// the process's own, requests by route template, pages rendered or sent as the shell, API calls by status and
// what is left of the platform's 700 a minute, the collector, the outbox, webhook deliveries, the store.

const TOKEN = 'metrics-test-token-0123456789abcdef';
const KEY = 'metrics-test-key-000000000000000000';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: TOKEN, SIM_API_KEY: KEY });
});
afterAll(() => server.stop());

const scrape = () => server.request({ path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });

/** One sample's value from the text, by its name and labels as written (`name{a="b"}`). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('is refused without the token, or with another, in the console error body', async () => {
    for (const authorization of [undefined, 'Bearer not-the-token-at-all-00000000', `Basic ${TOKEN}`]) {
      const refused = await server.request({ path: '/metrics', headers: authorization ? { authorization } : {} });

      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer');
      const body = JSON.parse(refused.body) as { code: string; message: string; request_id: string };
      expect(body).toEqual({
        code: 'metrics_unauthorized',
        message: expect.stringContaining('METRICS_TOKEN') as string,
        request_id: refused.headers['x-request-id'],
      });
      expect(refused.body).not.toContain('http_request_duration_seconds');
    }
  });

  it('carries, with the token, the figures of this instance', async () => {
    const before = (await scrape()).body;
    const page = await server.request({ path: '/projects/p-42?status=failed', headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const call = await server.request({ path: '/api/v2/projects?limit=1', headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' } });
    expect(call.status).toBe(200);

    await server.running.store.atStart;
    const answer = await scrape();
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = answer.body;

    // The process's own.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // Requests by the route's template, method and status class: the page's route, never its id or query.
    expect(sample(text, 'http_request_duration_seconds_count{route="/projects/:projectId",method="GET",status_class="2xx"}')).toBe(1);
    expect(text).not.toContain('p-42');
    // This test server renders no screen: the page went out as the shell.
    const shell = 'ops_console_pages_total{sent="shell"}';
    expect(sample(text, shell)).toBe((sample(before, shell) ?? 0) + 1);
    expect(sample(text, 'ops_console_pages_total{sent="rendered"}')).toBe(0);
    // The API call, by its status, and what it cost of the minute's budget.
    const ok = 'ops_console_api_requests_total{status="200"}';
    expect(sample(text, ok)).toBe((sample(before, ok) ?? 0) + 1);
    const lastMinute = sample(text, 'ops_console_api_requests_last_minute');
    expect(lastMinute).toBe((sample(before, 'ops_console_api_requests_last_minute') ?? 0) + 1);
    expect(sample(text, 'ops_console_api_budget_remaining')).toBe(700 - lastMinute!);
    // The embedded store is open (the test's DATA_DIR holds one, opened in the background at start: scraped once
    // it is), so this instance collects; no read yet.
    expect(sample(text, 'ops_console_store_open')).toBe(1);
    expect(sample(text, 'ops_console_collector_leader')).toBe(1);
    expect(text).toMatch(/^ops_console_collector_lag_seconds nan$/im);
    expect(sample(text, 'ops_console_collector_last_success_timestamp_seconds')).toBe(0);
    // The outbox, empty; deliveries by result, none yet.
    expect(sample(text, 'ops_console_outbox_pending')).toBe(0);
    expect(sample(text, 'ops_console_outbox_oldest_pending_age_seconds')).toBe(0);
    for (const result of ['delivered', 'retrying', 'failed']) expect(sample(text, `ops_console_webhook_deliveries_total{result="${result}"}`)).toBe(0);
    // PGlite has no pool: no pool figures.
    expect(text).not.toMatch(/^ops_console_store_pool_connections\{/m);
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  const request = (remoteAddress: string, headers: Record<string, string> = {}) => ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;

  it('answers this machine, and refuses another, or a request a proxy on this machine forwarded', () => {
    expect(metricsRefusal(request('127.0.0.1'), undefined)).toBeUndefined();
    expect(metricsRefusal(request('::1'), undefined)).toBeUndefined();
    expect(metricsRefusal(request('::ffff:127.0.0.1'), undefined)).toBeUndefined();
    expect(metricsRefusal(request('10.0.0.7'), undefined)).toMatchObject({ status: 403, message: expect.stringContaining('METRICS_TOKEN') as string });
    expect(metricsRefusal(request('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }), undefined)).toMatchObject({ status: 403 });
    expect(metricsRefusal(request('127.0.0.1', { forwarded: 'for=203.0.113.9' }), undefined)).toMatchObject({ status: 403 });
  });
});
