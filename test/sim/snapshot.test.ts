import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../sim/clock';
import { createControlPlane, worldSnapshotSchema } from '../../sim/control-plane';
import { seedDemo } from '../../sim/seed';
import { MINUTE, createSim } from './support';

// The demo world kept across a restart (docs/simulator.md#the-demo-world): a snapshot, through JSON, restored into a
// new control plane later on. An operation id keeps its created_at, a branch made before stays, what ended while the
// simulator was down has its effects.

describe('a world restored from its snapshot', () => {
  it('keeps every operation with its time, and the branches people made', () => {
    const { cp, clock, principalOf } = createSim({ failureRate: 0 });
    const seed = seedDemo(cp, { apiKey: 'demo-key' });
    const principal = principalOf(seed.apiKey);
    const made = cp.createBranch(principal, seed.projectIds.personal);
    expect(made.branch.current_state).toBe('init');
    const before = cp.listOperations(principal, seed.projectIds.big, { limit: 500 }).operations;
    const json = JSON.stringify(cp.snapshot());

    // Down for an hour; the branch's create operation ended meanwhile.
    const later = fakeClock(clock.now() + 60 * MINUTE);
    const restored = createControlPlane({ clock: later, failureRate: 0 });
    restored.restore(worldSnapshotSchema.parse(JSON.parse(json)));
    expect(restored.authenticate(seed.apiKey)).toEqual(principal);
    const after = restored.listOperations(principal, seed.projectIds.big, { limit: 501 }).operations;
    const kept = new Set(before.map((op) => op.id));
    expect(after.filter((op) => kept.has(op.id)).map((op) => `${op.id} ${op.created_at}`)).toEqual(before.map((op) => `${op.id} ${op.created_at}`));
    // All that happened while it was down: its active compute suspended once idle past its timeout.
    expect(
      after
        .slice(
          0,
          after.findIndex((op) => op.id === before[0]?.id),
        )
        .map((op) => op.action),
    ).toEqual(['suspend_compute']);
    const branch = restored.getBranch(principal, seed.projectIds.personal, made.branch.id).branch;
    expect(branch.name).toBe(made.branch.name);
    expect(branch.current_state).toBe('ready');
  });
});
