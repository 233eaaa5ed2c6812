import { describe, expect, it } from 'vitest';
import { OperationsPageSchema, OrganizationsResponseSchema, ProjectsPageSchema } from '../../src/api/schemas';
import { readConfig } from '../../server/config';
import { HUGE_PROJECT_OPERATIONS, seedDemo, seedEmpty } from '../../sim/seed';
import { MINUTE, SECOND, START, createSim, json } from './support';

const DAY = 24 * 60 * MINUTE;

function demo(apiKey = 'demo-key', options: Parameters<typeof createSim>[0] = {}) {
  const sim = createSim({ failureRate: 0.02, ...options });
  const seed = seedDemo(sim.cp, { apiKey });
  return { ...sim, seed };
}

describe('demo seed', () => {
  it('gives Demo User a personal key, admin rights in one organization and plain membership in another', async () => {
    const { call, seed, cp } = demo();
    const orgs = OrganizationsResponseSchema.parse((await call('GET', '/users/me/organizations', { key: seed.apiKey })).body);
    expect(orgs.organizations.map((o) => o.name)).toEqual(['Acme Analytics', 'Northwind Labs']);
    const principal = cp.authenticate(seed.apiKey);
    expect(principal).toEqual({ kind: 'personal', keyId: expect.any(Number) as number, userId: seed.userId });
    expect((await call('GET', `/organizations/${seed.orgIds.acme}/api_keys`, { key: seed.apiKey })).status).toBe(200);
    expect((await call('GET', `/organizations/${seed.orgIds.northwind}/api_keys`, { key: seed.apiKey })).status).toBe(403);
  });

  it('spreads at least five projects across the personal account and both organizations', async () => {
    const { call, seed } = demo();
    const list = async (query: string) =>
      ProjectsPageSchema.parse((await call('GET', `/projects?limit=400${query}`, { key: seed.apiKey })).body).projects.map((p) => p.name);
    const personal = await list('');
    const acme = await list(`&org_id=${seed.orgIds.acme}`);
    const northwind = await list(`&org_id=${seed.orgIds.northwind}`);
    expect(personal.sort()).toEqual(['blog-backend', 'scratchpad']);
    expect(acme.sort()).toEqual(['acme-analytics-prod', 'acme-analytics-staging']);
    expect(northwind.sort()).toEqual(['northwind-etl', 'northwind-storefront']);
    expect(new Set(Object.values(seed.projectIds)).size).toBe(6);
  });

  it('fills the big project with 2,000+ operations spread over about five months', () => {
    const { cp, seed } = demo();
    const ops = cp.operationsOf(seed.projectIds.big);
    expect(ops.length).toBeGreaterThanOrEqual(2000);
    const times = ops.map((o) => new Date(o.created_at).getTime());
    expect(START.getTime() - Math.min(...times)).toBeGreaterThan(140 * DAY);
    expect(START.getTime() - Math.min(...times)).toBeLessThan(160 * DAY);
    expect(START.getTime() - Math.max(...times)).toBeLessThan(MINUTE);
    // Every one of the last five 30-day stretches has plenty of history, not just one burst.
    for (let month = 0; month < 5; month++) {
      const inMonth = times.filter((t) => t <= START.getTime() - month * 30 * DAY && t > START.getTime() - (month + 1) * 30 * DAY);
      expect(inMonth.length).toBeGreaterThan(250);
    }
  });

  it('mixes the platform’s actions, including delete_tenant which the OpenAPI document does not list', () => {
    const { cp, seed } = demo();
    const actions = new Set(cp.operationsOf(seed.projectIds.big).map((o) => o.action));
    for (const action of ['check_availability', 'start_compute', 'suspend_compute', 'create_branch', 'apply_config', 'create_timeline', 'delete_tenant']) {
      expect(actions).toContain(action);
    }
  });

  it('includes a few failed, error, cancelled and skipped operations among mostly finished ones', () => {
    const { cp, seed } = demo();
    const ops = cp.operationsOf(seed.projectIds.big);
    const count = (status: string) => ops.filter((o) => o.status === status).length;
    for (const status of ['failed', 'error', 'cancelled', 'skipped']) {
      expect(count(status)).toBeGreaterThan(0);
      expect(count(status)).toBeLessThan(ops.length * 0.02);
    }
    expect(count('finished')).toBeGreaterThan(ops.length * 0.9);
    const failed = ops.find((o) => o.status === 'failed');
    expect(failed?.failures_count).toBeGreaterThanOrEqual(1);
    expect(failed?.error).toMatch(/\w/);
    expect(failed?.retry_at).toMatch(/Z$/);
  });

  it('has pairs of operations created in the same second', () => {
    const { cp, seed } = demo();
    const ops = cp.operationsOf(seed.projectIds.big);
    const pairs = ops.filter((o, i) => i > 0 && ops[i - 1]?.created_at === o.created_at);
    expect(pairs.length).toBeGreaterThan(10);
  });

  it('keeps one project without any operation, even as time passes', async () => {
    const { cp, clock, call, seed } = demo();
    clock.advance(2 * 60 * MINUTE);
    expect(cp.operationsOf(seed.projectIds.empty)).toEqual([]);
    const res = await call('GET', `/projects/${seed.projectIds.empty}/operations`, { key: seed.apiKey });
    expect(res.body).toEqual({ operations: [] });
  });

  it('has operations in progress around now that finish within seconds', () => {
    const { cp, clock, seed } = demo();
    const inProgress = () =>
      Object.values(seed.projectIds)
        .flatMap((id) => cp.operationsOf(id))
        .filter((o) => ['scheduling', 'running', 'failed'].includes(o.status) && START.getTime() - new Date(o.created_at).getTime() < MINUTE);
    const statuses = new Set(inProgress().map((o) => o.status));
    expect(statuses).toEqual(new Set(['scheduling', 'running', 'failed']));
    clock.advance(30 * SECOND);
    expect(inProgress()).toEqual([]);
  });

  it('retries the staging project’s failed suspend_compute at its retry_at and finishes it', () => {
    const { cp, clock, seed } = demo();
    const [failed] = cp.operationsOf(seed.projectIds.staging);
    expect(failed).toMatchObject({ action: 'suspend_compute', status: 'failed', failures_count: 1 });
    clock.set(new Date(failed!.retry_at!));
    expect(cp.findOperation(failed!.id)?.status).toBe('running');
    clock.advance(5 * SECOND);
    expect(cp.findOperation(failed!.id)).toMatchObject({ status: 'finished', failures_count: 1 });
  });

  it('keeps producing history as the clock advances', () => {
    const { cp, clock, seed } = demo();
    const before = cp.operationsOf(seed.projectIds.big).length;
    clock.advance(30 * MINUTE);
    const added = cp.operationsOf(seed.projectIds.big).slice(0, cp.operationsOf(seed.projectIds.big).length - before);
    const actions = new Set(added.map((o) => o.action));
    expect(actions).toContain('check_availability');
    // The active compute on main suspends itself after five idle minutes.
    expect(actions).toContain('suspend_compute');
    expect(cp.findEndpoint(seed.endpointIds.bigMain)?.current_state).toBe('idle');
  });

  it('refuses changes to the locked project with 423', async () => {
    const { call, seed } = demo();
    const res = await call('POST', `/projects/${seed.projectIds.locked}/branches`, { key: seed.apiKey });
    expect(res.status).toBe(423);
    expect(json(res).message).toMatch(/locked/);
  });

  it('uses the given API key, and a random 64-character one otherwise', () => {
    expect(demo('fixed-secret').seed.apiKey).toBe('fixed-secret');
    const a = seedDemo(createSim().cp).apiKey;
    const b = seedDemo(createSim().cp).apiKey;
    expect(a).toMatch(/^[a-z0-9]{64}$/);
    expect(a).not.toBe(b);
  });

  it('builds the same world for the same start time', () => {
    const a = demo();
    const b = demo();
    expect(b.seed.projectIds).toEqual(a.seed.projectIds);
    expect(b.cp.operationsOf(b.seed.projectIds.big)).toEqual(a.cp.operationsOf(a.seed.projectIds.big));
  });
});

describe('walking the big project', () => {
  it.each([100, 1000, 7])('returns every operation exactly once, newest first, with limit %i', async (limit) => {
    // Hundreds of requests within one frozen fake second would otherwise meet the burst limit.
    const { call, cp, seed } = demo('demo-key', { rateLimits: false });
    const expected = cp.operationsOf(seed.projectIds.big).map((o) => o.id);
    const seen: string[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const query = `?limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const res = await call('GET', `/projects/${seed.projectIds.big}/operations${query}`, { key: seed.apiKey });
      const body = OperationsPageSchema.parse(res.body);
      seen.push(...body.operations.map((o) => o.id));
      if (body.operations.length < limit) break;
      cursor = body.pagination?.cursor;
      cursors.push(cursor!);
    }
    expect(seen).toEqual(expected);
    expect([...cursors].sort().reverse()).toEqual(cursors);
    expect(new Set(cursors).size).toBe(cursors.length);
  });

  it('answers a page of 1,000 operations quickly', async () => {
    const { call, seed } = demo();
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const res = await call('GET', `/projects/${seed.projectIds.big}/operations?limit=1000`, { key: seed.apiKey });
      expect(res.status).toBe(200);
    }
    // Generous bound: a re-sort or full rescan per request would show up as seconds here.
    expect((performance.now() - started) / 20).toBeLessThan(100);
  });
});

describe('the huge project (SIM_HUGE_PROJECT=1)', () => {
  it('is not there by default', async () => {
    const { call, seed } = demo();
    expect(seed.projectIds.huge).toBeUndefined();
    const acme = ProjectsPageSchema.parse((await call('GET', `/projects?limit=400&org_id=${seed.orgIds.acme}`, { key: seed.apiKey })).body);
    expect(acme.projects.map((p) => p.name)).not.toContain('acme-event-archive');
  });

  it('is an Acme project the demo user sees, and leaves every other project as it was', async () => {
    const plain = demo();
    const sim = createSim({ failureRate: 0.02 });
    const seed = seedDemo(sim.cp, { apiKey: 'demo-key', hugeProject: HUGE_PROJECT_OPERATIONS });
    const acme = ProjectsPageSchema.parse((await sim.call('GET', `/projects?limit=400&org_id=${seed.orgIds.acme}`, { key: seed.apiKey })).body);
    expect(acme.projects.map((p) => p.name).sort()).toEqual(['acme-analytics-prod', 'acme-analytics-staging', 'acme-event-archive']);
    const { huge, ...others } = seed.projectIds;
    expect(huge).toEqual(expect.any(String));
    expect(others).toEqual(plain.seed.projectIds);
    expect(sim.cp.operationsOf(seed.projectIds.big)).toEqual(plain.cp.operationsOf(plain.seed.projectIds.big));
  });

  it('has as many operations as SIM_HUGE_PROJECT says: 20,000 for 1, or the number given (the browser tests’ 4,000)', () => {
    expect(readConfig({}).simHugeProject).toBe(0);
    expect(readConfig({ SIM_HUGE_PROJECT: '1' }).simHugeProject).toBe(HUGE_PROJECT_OPERATIONS);
    expect(readConfig({ SIM_HUGE_PROJECT: '4000' }).simHugeProject).toBe(4_000);
    expect(() => readConfig({ SIM_HUGE_PROJECT: '50' })).toThrow('SIM_HUGE_PROJECT must be a whole number from 1000 to 1000000, not "50".');
    const sim = createSim({ rateLimits: false });
    const seed = seedDemo(sim.cp, { apiKey: 'demo-key', hugeProject: 4_000 });
    expect(sim.cp.operationsOf(seed.projectIds.huge!)).toHaveLength(4_000);
  });

  it('walks in pages of the console’s 100 rows to exactly 20,000 operations, each once, newest first, none running', async () => {
    const sim = createSim({ rateLimits: false });
    const seed = seedDemo(sim.cp, { apiKey: 'demo-key', hugeProject: HUGE_PROJECT_OPERATIONS });
    const projectId = seed.projectIds.huge!;
    const seen: string[] = [];
    const statuses = new Set<string>();
    let cursor: string | undefined;
    let requests = 0;
    for (; requests < 500;) {
      const query = `?limit=100${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const body = OperationsPageSchema.parse((await sim.call('GET', `/projects/${projectId}/operations${query}`, { key: seed.apiKey })).body);
      requests++;
      seen.push(...body.operations.map((o) => o.id));
      for (const o of body.operations) statuses.add(o.status);
      if (body.operations.length < 100) break;
      cursor = body.pagination?.cursor;
    }
    expect(HUGE_PROJECT_OPERATIONS).toBe(20_000);
    expect(seen).toHaveLength(20_000);
    expect(seen).toEqual(sim.cp.operationsOf(projectId).map((o) => o.id));
    // 200 full pages, then the empty page that ends the list.
    expect(requests).toBe(201);
    expect(statuses.has('running')).toBe(false);
    expect(statuses.has('scheduling')).toBe(false);
    expect(statuses.has('finished')).toBe(true);
  });

  it('holds still as the clock runs: an hour on it still has exactly 20,000 operations, while the others are checked as before', () => {
    const sim = createSim({ rateLimits: false });
    const seed = seedDemo(sim.cp, { apiKey: 'demo-key', hugeProject: HUGE_PROJECT_OPERATIONS });
    const bigBefore = sim.cp.operationsOf(seed.projectIds.big).length;
    sim.clock.advance(60 * MINUTE);
    expect(sim.cp.operationsOf(seed.projectIds.huge!)).toHaveLength(HUGE_PROJECT_OPERATIONS);
    expect(sim.cp.operationsOf(seed.projectIds.big).filter((op) => op.action === 'check_availability').length).toBeGreaterThan(0);
    expect(sim.cp.operationsOf(seed.projectIds.big).length).toBeGreaterThan(bigBefore);
  });
});

describe('empty seed', () => {
  it('has a user with a working personal key and nothing else', async () => {
    const sim = createSim();
    const seed = seedEmpty(sim.cp, { apiKey: 'empty-key' });
    const res = await sim.call('GET', '/projects', { key: seed.apiKey });
    expect(res.status).toBe(200);
    expect(ProjectsPageSchema.parse(res.body).projects).toEqual([]);
  });
});
