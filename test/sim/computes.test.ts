// Computes through the control plane's public API: idle suspend, keeping awake, waking on connect,
// and start/suspend/restart as operations.
import { describe, expect, it } from 'vitest';
import { MINUTE, SECOND, createSim } from './support';

describe('computes', () => {
  it('suspends an active compute once it has been idle past suspend_timeout_seconds (300 s by default)', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'active' });
    const endpointId = project.endpointId!;
    const suspends = () => sim.cp.operationsOf(project.id).filter((o) => o.action === 'suspend_compute');

    sim.clock.advance(299 * SECOND);
    expect(suspends()).toHaveLength(0);
    sim.clock.advance(2 * SECOND);
    expect(suspends()).toHaveLength(1);
    expect(suspends()[0]).toMatchObject({ status: 'running', endpoint_id: endpointId });
    expect(sim.cp.findEndpoint(endpointId)?.current_state).toBe('active');
    sim.clock.advance(5 * SECOND);
    expect(suspends()[0]?.status).toBe('finished');
    expect(sim.cp.findEndpoint(endpointId)?.current_state).toBe('idle');
    sim.clock.advance(60 * MINUTE);
    expect(suspends()).toHaveLength(1);
  });

  it('keeps a compute awake while clients use it', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'active' });
    sim.clock.advance(200 * SECOND);
    expect(sim.cp.connect(project.endpointId!)).toEqual([]);
    sim.clock.advance(200 * SECOND);
    expect(sim.cp.findEndpoint(project.endpointId!)?.current_state).toBe('active');
    sim.clock.advance(110 * SECOND);
    expect(sim.cp.operationsOf(project.id).filter((o) => o.action === 'suspend_compute')).toHaveLength(1);
  });

  it('never suspends a compute whose suspend_timeout_seconds is -1', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'active', suspendTimeoutSeconds: -1 });
    sim.clock.advance(24 * 60 * MINUTE);
    expect(sim.cp.operationsOf(project.id).some((o) => o.action === 'suspend_compute')).toBe(false);
    expect(sim.cp.findEndpoint(project.endpointId!)?.current_state).toBe('active');
  });

  it('wakes a suspended compute with start_compute when a client connects', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'idle' });
    const [start] = sim.cp.connect(project.endpointId!);
    expect(start).toMatchObject({ action: 'start_compute', status: 'scheduling' });
    expect(sim.cp.findEndpoint(project.endpointId!)?.pending_state).toBe('active');
    sim.clock.advance(8 * SECOND);
    expect(sim.cp.findOperation(start!.id)?.status).toBe('finished');
    expect(sim.cp.findEndpoint(project.endpointId!)?.current_state).toBe('active');
  });

  it('starts, suspends and restarts a compute through operations the caller can poll', () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const project = sim.cp.addProject({ name: 'p', ownerId: owner.userId, compute: 'idle' });
    const endpointId = project.endpointId!;

    const started = sim.cp.startEndpoint(owner.principal, project.id, endpointId);
    expect(started.operations.map((o) => o.action)).toEqual(['start_compute']);
    sim.clock.advance(10 * SECOND);
    expect(sim.cp.findEndpoint(endpointId)?.current_state).toBe('active');

    const restarted = sim.cp.restartEndpoint(owner.principal, project.id, endpointId);
    expect(restarted.operations.map((o) => [o.action, o.status])).toEqual([
      ['suspend_compute', 'running'],
      ['start_compute', 'scheduling'],
    ]);
    sim.clock.advance(15 * SECOND);
    expect(restarted.operations.map((o) => sim.cp.findOperation(o.id)?.status)).toEqual(['finished', 'finished']);
    expect(sim.cp.findEndpoint(endpointId)?.current_state).toBe('active');

    const suspended = sim.cp.suspendEndpoint(owner.principal, project.id, endpointId);
    expect(suspended.operations.map((o) => o.action)).toEqual(['suspend_compute']);
    sim.clock.advance(5 * SECOND);
    expect(sim.cp.findEndpoint(endpointId)?.current_state).toBe('idle');
    expect(sim.cp.suspendEndpoint(owner.principal, project.id, endpointId).operations).toEqual([]);
  });
});
