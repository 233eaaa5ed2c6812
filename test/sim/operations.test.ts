// Operations through the control plane's public API: lifecycle against the clock, failures and
// retries, history entries, 423 locks, and ordering.
import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../sim/clock';
import { seededRandom } from '../../sim/random';
import { MINUTE, START, createSim, failureOf, ms } from './support';

describe('fake clock', () => {
  it('advances and can be set forward, never backwards', () => {
    const clock = fakeClock(START);
    clock.advance(1500);
    expect(clock.now()).toBe(START.getTime() + 1500);
    clock.set(START.getTime() + 10_000);
    expect(clock.now()).toBe(START.getTime() + 10_000);
    expect(() => clock.set(START)).toThrow(/backwards/);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });
});

describe('operation lifecycle', () => {
  function projectWithOwner(compute: 'active' | 'idle' | false = false) {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'lifecycle', ownerId: owner.userId, compute });
    return { ...sim, owner, project };
  }

  it('runs create_branch from running to finished within 2–4 s and then marks the branch ready', () => {
    const { cp, clock, owner, project } = projectWithOwner();
    const created = cp.createBranch(owner.principal, project.id, { name: 'feature' });
    const [op] = created.operations;
    expect(created.operations).toHaveLength(1);
    expect(op).toMatchObject({ action: 'create_branch', status: 'running', total_duration_ms: 0, failures_count: 0 });
    expect(created.branch.current_state).toBe('init');

    clock.advance(1999);
    expect(cp.findOperation(op!.id)?.status).toBe('running');
    clock.advance(2001);
    const finished = cp.findOperation(op!.id)!;
    expect(finished.status).toBe('finished');
    expect(finished.total_duration_ms).toBeGreaterThanOrEqual(2000);
    expect(finished.total_duration_ms).toBeLessThanOrEqual(4000);
    expect(ms(finished.updated_at)).toBeGreaterThan(ms(finished.created_at));
    expect(cp.findBranch(created.branch.id)?.current_state).toBe('ready');
  });

  it('schedules start_compute behind create_branch, runs it once the branch exists, and then makes the compute active', () => {
    const { cp, clock, owner, project } = projectWithOwner();
    const created = cp.createBranch(owner.principal, project.id, { endpoints: [{ type: 'read_write' }] });
    expect(created.operations.map((o) => [o.action, o.status])).toEqual([
      ['create_branch', 'running'],
      ['start_compute', 'scheduling'],
    ]);
    const [createOp, startOp] = created.operations;
    const endpointId = created.endpoints[0]!.id;
    expect(startOp!.endpoint_id).toBe(endpointId);
    expect(cp.findEndpoint(endpointId)).toMatchObject({ current_state: 'init', pending_state: 'active' });

    const seen = new Set<string>();
    for (let t = 0; t < 12_000; t += 250) {
      clock.advance(250);
      const start = cp.findOperation(startOp!.id)!;
      const create = cp.findOperation(createOp!.id)!;
      seen.add(start.status);
      // start_compute never runs before the branch it needs exists.
      if (start.status === 'running') expect(create.status).toBe('finished');
    }
    expect([...seen]).toEqual(['scheduling', 'running', 'finished']);
    const start = cp.findOperation(startOp!.id)!;
    const createEnd = ms(cp.findOperation(createOp!.id)!.updated_at);
    expect(ms(start.updated_at) - createEnd).toBeGreaterThanOrEqual(2000);
    expect(ms(start.updated_at) - createEnd).toBeLessThanOrEqual(7000);
    const wireSpan = ms(start.updated_at) - ms(start.created_at);
    expect(Math.abs(start.total_duration_ms - wireSpan)).toBeLessThan(1000);
    expect(cp.findEndpoint(endpointId)).toMatchObject({ current_state: 'active' });
    expect(cp.findEndpoint(endpointId)?.pending_state).toBeUndefined();
  });

  it('ends a failed first attempt with error, failures_count and retry_at, then retries at retry_at and finishes', () => {
    const { cp, clock, project } = projectWithOwner();
    const op = cp.addOperation({ projectId: project.id, action: 'apply_config', startAs: 'running', durationMs: 2000, fail: true });
    clock.advance(2000);
    const failed = cp.findOperation(op.id)!;
    expect(failed).toMatchObject({ status: 'failed', failures_count: 1, total_duration_ms: 0 });
    expect(failed.error).toMatch(/\w/);
    const retryAt = ms(failed.retry_at!);
    expect(retryAt).toBeGreaterThan(clock.now());

    clock.set(retryAt);
    expect(cp.findOperation(op.id)).toMatchObject({ status: 'running', failures_count: 1 });
    expect(cp.findOperation(op.id)?.retry_at).toBeUndefined();
    clock.advance(2000);
    const done = cp.findOperation(op.id)!;
    expect(done).toMatchObject({ status: 'finished', failures_count: 1 });
    expect(done.total_duration_ms).toBe(retryAt + 2000 - START.getTime());
  });

  it('fails roughly the configured share of live operations', () => {
    const count = (failureRate: number) => {
      const sim = createSim({ failureRate, random: seededRandom(7) });
      const owner = sim.personalUser();
      const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: false });
      const ids = Array.from({ length: 400 }, () => sim.cp.addOperation({ projectId: project.id, action: 'apply_config', durationMs: 1000 }).id);
      sim.clock.advance(1000);
      return ids.filter((id) => sim.cp.findOperation(id)?.status === 'failed').length;
    };
    expect(count(0)).toBe(0);
    const half = count(0.5);
    expect(half).toBeGreaterThan(150);
    expect(half).toBeLessThan(250);
    expect(count(0.02)).toBeLessThan(25);
  });

  it('keeps history entries at the status they were given, with their duration', () => {
    const { cp, clock, project } = projectWithOwner();
    const created = START.getTime() - 3 * MINUTE;
    const statuses = ['finished', 'error', 'cancelled', 'skipped', 'failed', 'cancelling'] as const;
    const ops = statuses.map((status) => cp.addOperation({ projectId: project.id, action: 'tenant_attach', status, createdAt: created, durationMs: 1500 }));
    clock.advance(60 * MINUTE);
    const now = ops.map((o) => cp.findOperation(o.id)!);
    expect(now.map((o) => o.status)).toEqual([...statuses]);
    expect(now.map((o) => o.total_duration_ms)).toEqual([1500, 1500, 1500, 1500, 0, 0]);
    expect(now[4]?.failures_count).toBe(1);
    expect(now[4]?.error).toMatch(/\w/);
    expect(now[4]?.retry_at).toMatch(/^2026-11-22T/);
  });

  it('writes created_at and updated_at with second precision', () => {
    const { cp, project } = projectWithOwner();
    const op = cp.addOperation({ projectId: project.id, action: 'apply_config', createdAt: START.getTime() - 1234, status: 'finished', durationMs: 900 });
    expect(op.created_at).toBe('2026-11-22T11:59:58Z');
    expect(op.updated_at).toBe('2026-11-22T11:59:59Z');
  });
});

describe('locks', () => {
  it('refuses a change with 423 while a user-visible operation runs, and accepts it once that ends', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: false });
    sim.cp.addOperation({ projectId: project.id, action: 'apply_config', startAs: 'running', durationMs: 3000, fail: false });
    expect(failureOf(() => sim.cp.createBranch(owner.principal, project.id))?.status).toBe(423);
    sim.clock.advance(3000);
    expect(sim.cp.createBranch(owner.principal, project.id).operations).toHaveLength(1);
  });

  it('does not let a running check_availability block changes', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: false });
    sim.cp.addOperation({ projectId: project.id, action: 'check_availability', status: 'running' });
    expect(sim.cp.createBranch(owner.principal, project.id).operations).toHaveLength(1);
  });

  it('keeps a project locked while a failed operation waits for its retry', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: false });
    const op = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', startAs: 'running', durationMs: 1000, fail: true });
    sim.clock.advance(1000);
    expect(sim.cp.findOperation(op.id)?.status).toBe('failed');
    expect(failureOf(() => sim.cp.createBranch(owner.principal, project.id))?.status).toBe(423);
  });

  it('refuses every change to a locked project with 423', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'idle', locked: true });
    expect(sim.cp.findProject(project.id)?.locked).toBe(true);
    const attempt = () => sim.cp.startEndpoint(owner.principal, project.id, project.endpointId!);
    const refusal = failureOf(attempt);
    expect(refusal?.status).toBe(423);
    expect(refusal?.message).toMatch(/locked/);
    sim.cp.setProjectLocked(project.id, false);
    expect(attempt().operations).toHaveLength(1);
  });
});

describe('ordering', () => {
  it('lists operations started one after another in the same millisecond newest first, in the order they started', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'same-ms', ownerId: owner.userId, compute: false });
    const started = Array.from({ length: 50 }, (_, i) => sim.cp.addOperation({ projectId: project.id, action: `step_${i}`, startAs: 'running', fail: false }));
    expect(sim.cp.operationsOf(project.id).map((op) => op.id)).toEqual(started.map((op) => op.id).reverse());
  });
});

describe('pruning', () => {
  it('drops an operation from the list and from its own route, as the platform does after about 6 months', async () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'pruned', ownerId: owner.userId, compute: false });
    const old = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'finished', createdAt: START.getTime() - 200 * 24 * 60 * MINUTE });
    const kept = sim.cp.addOperation({ projectId: project.id, action: 'apply_config', status: 'finished' });

    sim.cp.pruneOperation(old.id);

    expect(sim.cp.operationsOf(project.id).map((op) => op.id)).toEqual([kept.id]);
    expect(sim.cp.findOperation(old.id)).toBeUndefined();
    expect((await sim.call('GET', `/projects/${project.id}/operations/${old.id}`, { key: owner.key })).status).toBe(404);
    expect(() => sim.cp.pruneOperation(old.id)).toThrow(/unknown operation/);
  });
});
