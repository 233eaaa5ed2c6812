import { describe, expect, it } from 'vitest';
import { readClusterMessage, workerRevocations, type Channel, type ClusterMessage } from '../../server/cluster-messages';
import { createRevokedSessions } from '../../server/session/revoked-sessions';

// A worker's side of sign-out across a cluster (server/process/run.ts is the primary's): the primary is played by
// the test, which sees what the worker sends and answers (or does not) as the primary would.

function fakePrimary(): Channel & { sent: ClusterMessage[]; deliver: (message: ClusterMessage) => void } {
  const listeners: ((message: ClusterMessage) => void)[] = [];
  const sent: ClusterMessage[] = [];
  return {
    sent,
    send: (message) => void sent.push(message),
    onMessage: (listener) => void listeners.push(listener),
    deliver: (message) => listeners.forEach((listener) => listener(message)),
  };
}

const HOUR_FROM_NOW = () => Date.now() + 3_600_000;

/** Whether `promise` has settled by the time the queued tasks have run. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

describe('a worker’s sign-outs, shared through the primary', () => {
  it('is spread only once the primary says every other worker has it', async () => {
    const primary = fakePrimary();
    const revoked = workerRevocations(primary).share(createRevokedSessions());
    revoked.revoke('sid-1', HOUR_FROM_NOW());
    expect(revoked.isRevoked('sid-1')).toBe(true);
    const message = primary.sent.find((sent) => sent.type === 'ops-console:revoke');
    expect(message).toMatchObject({ sid: 'sid-1', reason: 'signed-out', id: expect.any(String) as string });

    const spread = revoked.spread();
    expect(await settledSoon(spread)).toBe(false);
    primary.deliver({ type: 'ops-console:revoked', id: 'someone else’s' });
    expect(await settledSoon(spread)).toBe(false);
    if (message?.type !== 'ops-console:revoke' || message.id === undefined) throw new Error('no id to answer');
    primary.deliver({ type: 'ops-console:revoked', id: message.id });
    expect(await settledSoon(spread)).toBe(true);
  });

  it('takes on another worker’s sign-out and says it has it', () => {
    const primary = fakePrimary();
    const revoked = workerRevocations(primary).share(createRevokedSessions());
    primary.deliver({ type: 'ops-console:revoke', sid: 'sid-2', exp: HOUR_FROM_NOW(), reason: 'rejected', id: '42:1' });
    expect(revoked.reasonOf('sid-2')).toBe('rejected');
    expect(primary.sent).toContainEqual({ type: 'ops-console:revoked', id: '42:1' });
  });

  it('asks for the sign-outs made before it started, and is ready once it has them, holding what it heard meanwhile', async () => {
    const primary = fakePrimary();
    const worker = workerRevocations(primary);
    expect(primary.sent).toEqual([{ type: 'ops-console:hello' }]);
    expect(await settledSoon(worker.ready)).toBe(false);
    // Heard while the worker's server is still starting (no list to put them in yet).
    primary.deliver({ type: 'ops-console:revoke', sid: 'during-start', exp: HOUR_FROM_NOW(), reason: 'signed-out', id: '7:1' });
    primary.deliver({ type: 'ops-console:revocations', revocations: [{ sid: 'before-start', exp: HOUR_FROM_NOW(), reason: 'rejected' }] });
    expect(await settledSoon(worker.ready)).toBe(true);

    const revoked = worker.share(createRevokedSessions());
    expect(revoked.reasonOf('before-start')).toBe('rejected');
    expect(revoked.reasonOf('during-start')).toBe('signed-out');
    expect(revoked.isRevoked('never-ended')).toBe(false);
  });

  it('stops waiting for a primary that never answers: the worker still starts, and sign-out still answers', async () => {
    const primary = fakePrimary();
    const worker = workerRevocations(primary, { waitMs: 50 });
    const started = performance.now();
    await worker.ready;
    const revoked = worker.share(createRevokedSessions());
    revoked.revoke('sid-3', HOUR_FROM_NOW());
    await revoked.spread();
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(revoked.isRevoked('sid-3')).toBe(true);
  });

  it('has nothing to wait for before any sign-out', async () => {
    const revoked = workerRevocations(fakePrimary()).share(createRevokedSessions());
    expect(await settledSoon(revoked.spread())).toBe(true);
  });

  it('reads only its own messages off the IPC channel', () => {
    expect(readClusterMessage({ type: 'ops-console:revoked', id: '1:1' })).toEqual({ type: 'ops-console:revoked', id: '1:1' });
    expect(readClusterMessage({ type: 'ops-console:revocations', revocations: [{ sid: 's', exp: 1, reason: 'signed-out' }] })).not.toBeNull();
    expect(readClusterMessage({ type: 'ops-console:revoked' })).toBeNull();
    expect(readClusterMessage({ type: 'ops-console:revoke', sid: 's', exp: 'soon', reason: 'signed-out' })).toBeNull();
    expect(readClusterMessage({ cmd: 'NODE_CLUSTER' })).toBeNull();
  });
});
