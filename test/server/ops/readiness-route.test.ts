import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveReadiness } from '../../../server/ops/ops-routes';
import { createReadiness } from '../../../server/ops/readiness';
import { StoreUnavailableError } from '../../../server/store/db';
import { MigrationFailedError } from '../../../server/store/migrations';
import { rawRequest } from '../http-helpers';

// /readyz (docs/operations.md, "Readiness"): 503 only for what taking this instance out fixes (draining, its migrations
// not all applied); a store that is down is every instance's, so its check says "degraded" and the answer is 200. The
// details (hosts, ports, the error's text) go to this machine or the metrics token; anyone else reads names and statuses.

const TOKEN = 'readiness-metrics-token-0000000000';
const idle = { lastSuccessAt: () => undefined, failingSince: () => undefined };

let openError: Error | undefined;
let draining = false;
const probe = createReadiness({
  store: { kind: 'postgres', opened: () => undefined, failing: () => 3, openError: () => openError },
  metricsToken: TOKEN,
  leading: () => false,
  collector: idle,
  draining: () => draining,
});
const server = http.createServer((req, res) => void serveReadiness(req, res, probe));
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const ask = async (headers: Record<string, string> = {}) => {
  const answer = await rawRequest(port, { path: '/readyz', headers: { connection: 'close', ...headers } });
  return { status: answer.status, body: answer.body, json: JSON.parse(answer.body) as { status: string; checks: Record<string, Record<string, unknown>> } };
};

describe('/readyz', () => {
  it('answers 200 with the store "degraded" while Postgres is down, and shows why only to this machine or the metrics token', async () => {
    draining = false;
    openError = new StoreUnavailableError("The console's store (Postgres at db.internal:5432/console) is unavailable: connect ECONNREFUSED 10.0.0.5:5432.");

    const local = await ask();
    expect(local.status).toBe(200);
    expect(local.json).toMatchObject({ status: 'degraded', checks: { store: { status: 'degraded', kind: 'postgres' } } });
    expect(local.json.checks.store?.detail).toContain('connect ECONNREFUSED 10.0.0.5:5432');

    // Through a proxy (every visitor would look local): names and statuses only.
    const outside = await ask({ 'x-forwarded-for': '203.0.113.7' });
    expect(outside.status).toBe(200);
    expect(outside.json).toEqual({
      status: 'degraded',
      checks: { store: { status: 'degraded' }, collector: { status: 'waiting for the store' }, outbox: { status: 'unknown' } },
    });
    expect(outside.body).not.toMatch(/10\.0\.0\.5|5432|db\.internal|ECONNREFUSED/);
    expect((await ask({ 'x-forwarded-for': '203.0.113.7', authorization: 'Bearer wrong-token-000000000000' })).body).not.toContain('ECONNREFUSED');

    const withToken = await ask({ 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${TOKEN}` });
    expect(withToken.json.checks.store?.detail).toContain('connect ECONNREFUSED 10.0.0.5:5432');
  });

  it('answers 503 while its migrations are not all applied, naming them, and while draining', async () => {
    draining = false;
    openError = new StoreUnavailableError('could not be opened', {
      cause: new MigrationFailedError('004_insights.sql', ['004_insights.sql'], new Error('relation "x" already exists')),
    });
    const missing = await ask();
    expect(missing.status).toBe(503);
    expect(missing.json).toMatchObject({
      status: 'not ready',
      checks: { store: { status: 'migrations missing', missing: ['004_insights.sql'], detail: expect.stringContaining('already exists') as string } },
    });
    expect((await ask({ 'x-forwarded-for': '203.0.113.7' })).json).toMatchObject({ status: 'not ready', checks: { store: { status: 'migrations missing' } } });

    openError = undefined;
    draining = true;
    const drain = await ask({ 'x-forwarded-for': '203.0.113.7' });
    expect(drain.status).toBe(503);
    expect(drain.json).toMatchObject({ status: 'draining' });
  });
});
