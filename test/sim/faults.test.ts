import http from 'node:http';
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../../sim/clock';
import { createControlPlane } from '../../sim/control-plane';
import { createFaultControl, createFaultInjector, FaultPlanSchema, pathMatches, UNKNOWN_ACTION, UNKNOWN_STATUS, type FaultPlan } from '../../sim/faults';
import { createHandlers, REQUEST_ID_HEADER } from '../../sim/handlers';
import { isApiPath } from '../../server/http/paths';
import { createSimulatorHandler } from '../../server/proxy/simulator-fetch';
import { seededRandom } from '../../sim/random';
import { seedDemo } from '../../sim/seed';
import { OperationsPageSchema, ProjectsPageSchema } from '../../src/api/schemas';
import { close, listen, rawRequest } from '../server/http-helpers';

const KEY = 'faults-test-key-0000000000000000';
const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };

function simulator() {
  const cp = createControlPlane({ clock: fakeClock(Date.parse('2026-11-22T12:00:00Z')), failureRate: 0 });
  const seed = seedDemo(cp, { apiKey: KEY });
  const faults = createFaultInjector({ random: seededRandom(7) });
  const handlers = createHandlers(cp, { faults, rateLimits: false });
  const projectId = seed.projectIds.personal;
  async function call(method: string, path: string): Promise<Response> {
    const response = await getResponse(handlers, new Request(`http://sim.test/api/v2${path}`, { method, headers: auth }));
    if (!response) throw new Error(`nothing answered ${method} ${path}`);
    return response;
  }
  return { cp, seed, faults, handlers, call, projectId };
}

const plan = (rules: FaultPlan['rules']): FaultPlan => FaultPlanSchema.parse({ rules });

describe('fault plan', () => {
  it('accepts every kind of fault and refuses nonsense', () => {
    expect(
      FaultPlanSchema.safeParse({
        rules: [
          { fault: { type: 'latency', ms: 500 } },
          { fault: { type: 'status', status: 503, retryAfterSeconds: 2 }, share: 0.5, method: 'GET', path: '/projects/*' },
          { fault: { type: 'rate-limit', retryAfterSeconds: 3 }, count: 2 },
          { fault: { type: 'malformed-json' } },
          { fault: { type: 'schema-break' } },
          { fault: { type: 'drop-connection' } },
          { fault: { type: 'unknown-values', status: 'paused' } },
        ],
      }).success,
    ).toBe(true);
    for (const bad of [
      { rules: [{ fault: { type: 'status', status: 418 } }] },
      { rules: [{ fault: { type: 'latency', ms: -1 } }] },
      { rules: [{ fault: { type: 'explode' } }] },
      { rules: [{ fault: { type: 'drop-connection' }, share: 2 }] },
      { rules: [{ fault: { type: 'drop-connection' }, count: 0 }] },
      { rules: [{ fault: { type: 'drop-connection' }, path: 'no-leading-slash' }] },
      { rules: [{ fault: { type: 'drop-connection' }, method: 'BREW' }] },
    ]) {
      expect(FaultPlanSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it.each([
    ['/projects/*/operations', '/projects/p-1/operations', true],
    ['/projects/*/operations', '/projects/p-1/operations/op-1', false],
    ['/projects/*/operations', '/projects', false],
    ['/projects/**', '/projects/p-1/operations/op-1', true],
    ['/projects/**', '/projects', true],
    ['/projects', '/projects', true],
    ['/projects', '/api_keys', false],
  ])('path %s matches %s: %s', (pattern, path, expected) => {
    expect(pathMatches(pattern, path)).toBe(expected);
  });
});

describe('fault injector', () => {
  it('injects nothing by default', () => {
    const faults = createFaultInjector();
    expect(faults.decide('GET', '/projects')).toEqual({ latencyMs: 0, fault: undefined });
    expect(faults.plan()).toEqual({ rules: [] });
  });

  it('scopes rules by method and path, and adds latency to the one fault that shapes the answer', () => {
    const faults = createFaultInjector();
    faults.set(
      plan([
        { fault: { type: 'latency', ms: 200 } },
        { fault: { type: 'latency', ms: 50 }, path: '/projects/*/operations' },
        { fault: { type: 'status', status: 503 }, method: 'GET', path: '/projects/*/operations' },
        { fault: { type: 'drop-connection' }, path: '/projects/*/operations' },
      ]),
    );
    expect(faults.decide('GET', '/projects/p-1/operations')).toEqual({ latencyMs: 250, fault: { type: 'status', status: 503 } });
    expect(faults.decide('POST', '/projects/p-1/operations')).toEqual({ latencyMs: 250, fault: { type: 'drop-connection' } });
    expect(faults.decide('GET', '/projects')).toEqual({ latencyMs: 200, fault: undefined });
    expect(faults.injected()).toBe(3);
  });

  it('spends a counted rule on the next N matching requests only', () => {
    const faults = createFaultInjector();
    faults.set(plan([{ fault: { type: 'rate-limit', retryAfterSeconds: 2 }, count: 2, path: '/projects' }]));
    expect(faults.decide('GET', '/api_keys').fault).toBeUndefined();
    expect(faults.decide('GET', '/projects').fault?.type).toBe('rate-limit');
    expect(faults.plan().rules[0]?.count).toBe(1);
    expect(faults.decide('GET', '/projects').fault?.type).toBe('rate-limit');
    expect(faults.decide('GET', '/projects').fault).toBeUndefined();
    expect(faults.plan()).toEqual({ rules: [] });
  });

  it('fails the same share of requests every run with the same seeded random', () => {
    const outcomes = () => {
      const faults = createFaultInjector({ random: seededRandom(42) });
      faults.set(plan([{ fault: { type: 'status', status: 500 }, share: 0.3 }]));
      return Array.from({ length: 1_000 }, () => faults.decide('GET', '/projects').fault !== undefined);
    };
    const first = outcomes();
    expect(outcomes()).toEqual(first);
    const failed = first.filter(Boolean).length;
    expect(failed).toBeGreaterThan(250);
    expect(failed).toBeLessThan(350);
  });

  it('is off again once cleared', () => {
    const faults = createFaultInjector();
    faults.set(plan([{ fault: { type: 'drop-connection' } }]));
    faults.clear();
    expect(faults.decide('GET', '/projects').fault).toBeUndefined();
  });
});

describe('faults in the simulator handlers', () => {
  it('answers 500/503 with the platform error body and a request id', async () => {
    const sim = simulator();
    sim.faults.set(plan([{ fault: { type: 'status', status: 503, retryAfterSeconds: 4 } }]));
    const response = await sim.call('GET', '/projects');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('4');
    const requestId = response.headers.get(REQUEST_ID_HEADER);
    expect(requestId).toBeTruthy();
    expect(await response.json()).toEqual({ code: '', message: expect.any(String) as string, request_id: requestId });
  });

  it('answers 423 once, as if another client held the project, and the retried change then goes through', async () => {
    const sim = simulator();
    sim.faults.set(plan([{ fault: { type: 'status', status: 423 }, method: 'POST', path: '/projects/*/branches', count: 1 }]));
    const refused = await sim.call('POST', `/projects/${sim.projectId}/branches`);
    expect(refused.status).toBe(423);
    expect(((await refused.json()) as { message: string }).message).toMatch(/running operations/);
    expect((await sim.call('POST', `/projects/${sim.projectId}/branches`)).status).toBe(201);
  });

  it('answers 429 with Retry-After before even checking the key', async () => {
    const sim = simulator();
    sim.faults.set(plan([{ fault: { type: 'rate-limit', retryAfterSeconds: 3 } }]));
    const response = await getResponse(sim.handlers, new Request('http://sim.test/api/v2/projects'));
    expect(response?.status).toBe(429);
    expect(response?.headers.get('retry-after')).toBe('3');
  });

  it('sends a body that is not JSON, or JSON the console schema refuses, with a request id', async () => {
    const sim = simulator();
    sim.faults.set(
      plan([
        { fault: { type: 'malformed-json' }, count: 1 },
        { fault: { type: 'schema-break' }, count: 1 },
      ]),
    );
    const malformed = await sim.call('GET', '/projects');
    expect(malformed.status).toBe(200);
    expect(malformed.headers.get(REQUEST_ID_HEADER)).toBeTruthy();
    const text = await malformed.text();
    expect(() => JSON.parse(text) as unknown).toThrow();

    const broken = await sim.call('GET', '/projects');
    expect(broken.status).toBe(200);
    expect(ProjectsPageSchema.safeParse(await broken.json()).success).toBe(false);

    const healthy = await sim.call('GET', '/projects');
    expect(ProjectsPageSchema.safeParse(await healthy.json()).success).toBe(true);
  });

  it('gives operations statuses and actions no client knows, in an otherwise valid page', async () => {
    const sim = simulator();
    sim.faults.set(plan([{ fault: { type: 'unknown-values' } }]));
    const response = await sim.call('GET', `/projects/${sim.projectId}/operations?limit=5`);
    const page = OperationsPageSchema.parse(await response.json());
    expect(page.operations.length).toBeGreaterThan(0);
    for (const op of page.operations) expect(op).toMatchObject({ status: UNKNOWN_STATUS, action: UNKNOWN_ACTION });

    sim.faults.set(plan([{ fault: { type: 'unknown-values', status: 'hibernating' } }]));
    const statusOnly = OperationsPageSchema.parse(await (await sim.call('GET', `/projects/${sim.projectId}/operations?limit=5`)).json());
    expect(statusOnly.operations.every((op) => op.status === 'hibernating' && op.action !== UNKNOWN_ACTION)).toBe(true);
  });

  it('fails just the named operations: the rest of the page is as the platform holds it', async () => {
    const sim = simulator();
    const healthy = OperationsPageSchema.parse(await (await sim.call('GET', `/projects/${sim.projectId}/operations?limit=5`)).json()).operations;
    const [target, ...rest] = healthy;
    if (!target) throw new Error('an empty project');
    sim.faults.set(plan([{ fault: { type: 'unknown-values', status: 'failed', ids: [target.id] } }]));
    const page = OperationsPageSchema.parse(await (await sim.call('GET', `/projects/${sim.projectId}/operations?limit=5`)).json()).operations;
    expect(page.find((op) => op.id === target.id)?.status).toBe('failed');
    expect(page.filter((op) => op.id !== target.id).map((op) => op.status)).toEqual(rest.map((op) => op.status));
  });

  it('drops the connection: a network error in fetch terms', async () => {
    const sim = simulator();
    sim.faults.set(plan([{ fault: { type: 'drop-connection' } }]));
    const response = await sim.call('GET', '/projects');
    expect(response.type).toBe('error');
  });
});

describe('faults over a real socket (the Node adapter)', () => {
  const sim = simulator();
  const handle = createSimulatorHandler(sim.handlers);
  const control = createFaultControl(sim.faults);
  const server = http.createServer((req, res) => {
    if (isApiPath(req.url)) void handle(req, res);
    else if (req.url === '/__sim/faults') void control(req, res);
    else res.writeHead(404).end();
  });
  let port: number;

  beforeAll(async () => {
    port = await listen(server);
  });
  afterAll(() => close(server));

  const putPlan = (body: string, contentType = 'application/json') =>
    rawRequest(port, { method: 'PUT', path: '/__sim/faults', headers: { 'content-type': contentType }, body });

  it('sets, reads and clears the plan through the control route, with no API key', async () => {
    const rules = [{ fault: { type: 'drop-connection' }, path: '/projects', count: 3 }];
    const put = await putPlan(JSON.stringify({ rules }));
    expect(put.status).toBe(200);
    expect(JSON.parse(put.body)).toEqual({ rules, injected: 0 });

    await expect(rawRequest(port, { path: '/api/v2/projects', headers: auth })).rejects.toThrow(/socket hang up|ECONNRESET/);
    const read = await rawRequest(port, { path: '/__sim/faults' });
    expect(JSON.parse(read.body)).toEqual({ rules: [{ ...rules[0], count: 2 }], injected: 1 });

    const cleared = await rawRequest(port, { method: 'DELETE', path: '/__sim/faults' });
    expect(JSON.parse(cleared.body)).toEqual({ rules: [], injected: 0 });
    expect((await rawRequest(port, { path: '/api/v2/projects', headers: auth })).status).toBe(200);
  });

  it('refuses a plan that is not JSON, not the schema, or not sent as JSON, and keeps the old one', async () => {
    expect((await putPlan('{"rules": [')).status).toBe(400);
    const invalid = await putPlan(JSON.stringify({ rules: [{ fault: { type: 'status', status: 404 } }] }));
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({ issues: [expect.stringContaining('rules.0.fault') as string] });
    expect((await putPlan(JSON.stringify({ rules: [] }), 'text/plain')).status).toBe(415);
    expect((await rawRequest(port, { method: 'POST', path: '/__sim/faults' })).status).toBe(405);
    expect(JSON.parse((await rawRequest(port, { path: '/__sim/faults' })).body)).toEqual({ rules: [], injected: 0 });
  });
});
