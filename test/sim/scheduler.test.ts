// The scheduler of background work, seen through the control plane: periodic availability checks,
// and a world derived from the clock alone.
import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../sim/clock';
import { createControlPlane } from '../../sim/control-plane';
import { seededRandom } from '../../sim/random';
import { MINUTE, SECOND, START, createSim, ms } from './support';

describe('background operations', () => {
  it('checks availability every few minutes on branches with a compute, and skips branches without one', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'idle' });
    const bare = sim.cp.addBranch({ projectId: project.id, name: 'no-compute' });
    expect(sim.cp.operationsOf(project.id)).toEqual([]);

    sim.clock.advance(60 * MINUTE);
    const checks = sim.cp.operationsOf(project.id).filter((o) => o.action === 'check_availability');
    expect(checks.length).toBeGreaterThanOrEqual(6);
    expect(checks.length).toBeLessThanOrEqual(16);
    expect(checks.every((o) => o.branch_id === project.defaultBranchId && o.endpoint_id === project.endpointId)).toBe(true);
    expect(checks.some((o) => o.branch_id === bare.id)).toBe(false);
    const times = checks.map((o) => ms(o.created_at)).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) {
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(4 * MINUTE - SECOND);
      expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(8 * MINUTE + SECOND);
    }
  });

  it("queues each availability check for 6–18 s before it runs, so the archive's collector sees operations queue", () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'idle' });
    // Read every second for half an hour, as a very eager collector would: when each check was last seen queued.
    const queuedUntil = new Map<string, number>();
    for (let second = 0; second < 30 * 60; second++) {
      sim.clock.advance(SECOND);
      for (const op of sim.cp.operationsOf(project.id))
        if (op.action === 'check_availability' && op.status === 'scheduling') queuedUntil.set(op.id, sim.clock.now() - ms(op.created_at));
    }
    const waits = [...queuedUntil.values()];
    expect(waits.length).toBeGreaterThanOrEqual(3);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(5 * SECOND);
      expect(wait).toBeLessThanOrEqual(18 * SECOND);
    }
  });

  it('derives background history from the clock alone: reading again without time passing adds nothing', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'active' });
    sim.clock.advance(3 * 60 * MINUTE);
    const first = sim.cp.operationsOf(project.id);
    expect(first.length).toBeGreaterThan(20);
    expect(sim.cp.operationsOf(project.id)).toEqual(first);
    expect(sim.cp.listOperations(owner.principal, project.id, { limit: 1000 }).operations).toEqual(first);
  });

  it('produces the same world from the same seed and calls', () => {
    const build = () => {
      const clock = fakeClock(START);
      const cp = createControlPlane({ clock, random: seededRandom(42) });
      const user = cp.addUser({ name: 'Same' });
      const project = cp.addProject({ name: 'p', ownerId: user.id, compute: 'active' });
      clock.advance(2 * 60 * MINUTE);
      return cp.operationsOf(project.id);
    };
    const a = build();
    expect(a.length).toBeGreaterThan(10);
    expect(build()).toEqual(a);
  });

  it('stops checking a branch once it is deleted', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: false });
    const branch = sim.cp.addBranch({ projectId: project.id, name: 'temp', compute: 'idle' });
    expect(sim.cp.deleteBranch(owner.principal, project.id, branch.id)).not.toBeNull();
    sim.clock.advance(60 * MINUTE);
    expect(sim.cp.operationsOf(project.id).filter((o) => o.action === 'check_availability')).toEqual([]);
  });
});

describe('catching up with the clock', () => {
  it('applies an effect at the time it was due, not when someone next asks', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'idle' });
    const [start] = sim.cp.startEndpoint(owner.principal, project.id, project.endpointId!).operations;
    sim.clock.advance(2 * 60 * MINUTE);
    const endpoint = sim.cp.findEndpoint(project.endpointId!)!;
    const finished = sim.cp.findOperation(start!.id)!;
    expect(endpoint.started_at).toBe(finished.updated_at);
    // Then idle for the 300 s timeout, measured from that start: suspended long before this read.
    expect(endpoint.current_state).toBe('idle');
    expect(ms(endpoint.suspended_at!)).toBeLessThan(ms(finished.updated_at) + 310 * SECOND);
  });

  it('brings the world up to date on any call, a scope-checked request as much as an inspection', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: false });
    const created = sim.cp.createBranch(owner.principal, project.id, { name: 'feature' });
    sim.clock.advance(10 * SECOND);
    expect(sim.cp.getBranch(owner.principal, project.id, created.branch.id).branch.current_state).toBe('ready');
    expect(sim.cp.listOperations(owner.principal, project.id).operations[0]?.status).toBe('finished');
  });
});
