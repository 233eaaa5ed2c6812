// Sign-out on every instance (issue 22): revocations live in the store (revoked_sessions) and each
// process keeps all those still in force in memory, so `isRevoked` stays a synchronous look-up. A
// sign-out is kept here at once and written to the store; the other instances read what was added every
// `pollMs` (and cluster workers also tell each other at once over IPC, cluster-messages.ts). Nothing is
// dropped before its session would have expired: the 50,000 cap of the memory-only list does not apply.
// On PGlite the store opens with the archive's first use (one instance only, so nothing is missed
// meanwhile): sign-outs before that are written then, and from then on they outlive a restart.
import type { Db } from '../store';
import { pruneRevocations, revocationsSince, storeRevocation } from '../store/revoked-sessions';
import { createRevokedSessions, type RevocationReason, type RevokedSessions } from './revoked-sessions';

export const REVOCATION_POLL_MS = 1_000;
const PRUNE_EVERY_MS = 60 * 60_000;
// Revocations read again on each poll: a write that committed just after the previous poll's read is not missed.
const OVERLAP_MS = 10_000;

export interface StoredRevocations extends RevokedSessions {
  /** Every revocation in force, read once before the server answers. */
  ready: Promise<void>;
  stop: () => Promise<void>;
}

/** The store as the revocations use it: written to and read from once it is open. */
export interface RevocationStore {
  opened: () => Db | undefined;
  onOpen: (listener: (db: Db) => void) => void;
}

export function createStoredRevocations(store: RevocationStore, { now = Date.now, pollMs = REVOCATION_POLL_MS, log }: { now?: () => number; pollMs?: number; log: (line: string) => void }): StoredRevocations {
  const local = createRevokedSessions(now, Number.POSITIVE_INFINITY);
  const writes = new Set<Promise<void>>();
  let readUpTo = 0;
  let prunedAt = now();
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();
  let stopped = false;
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const poll = async (db: Db) => {
    const started = now();
    for (const row of await revocationsSince(db, Math.max(0, readUpTo - OVERLAP_MS), new Date(started))) local.revoke(row.sid, row.expires_ms, row.reason);
    readUpTo = started;
    if (started - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = started;
      await pruneRevocations(db, new Date(started));
    }
  };
  // Sign-outs before the store opened (PGlite opens when the archive is first used): written once it is.
  const pending: { sid: string; exp: number; reason: RevocationReason }[] = [];
  const write = (db: Db, sid: string, exp: number, reason: RevocationReason) => {
    const written = storeRevocation(db, sid, new Date(exp), new Date(now()), reason).catch((error: unknown) =>
      log(`Sessions: a sign-out could not be written to the store (${describe(error)}); it holds on this instance only`),
    );
    writes.add(written);
    void written.finally(() => writes.delete(written));
  };
  const ready = new Promise<void>((resolve) => {
    const state = { opened: false };
    store.onOpen((db) => {
      state.opened = true;
      for (const { sid, exp, reason } of pending.splice(0)) if (exp > now()) write(db, sid, exp, reason);
      polling = poll(db).catch((error: unknown) => log(`Sessions: could not read sign-outs from the store (${describe(error)}); trying again`));
      void polling.then(resolve);
      if (stopped) return;
      timer = setInterval(() => {
        polling = polling.then(() => poll(db)).catch((error: unknown) => log(`Sessions: could not read sign-outs from the store (${describe(error)}); trying again`));
      }, pollMs);
      timer.unref();
    });
    // No store yet (PGlite not opened): nothing was ever signed out into it.
    if (!state.opened) resolve();
  });
  return {
    ready,
    isRevoked: local.isRevoked,
    reasonOf: local.reasonOf,
    size: local.size,
    // Other instances read the store every pollMs (above): not waited for.
    spread: local.spread,
    revoke(sid, exp, reason = 'signed-out') {
      local.revoke(sid, exp, reason);
      if (exp <= now()) return;
      const db = store.opened();
      if (db) write(db, sid, exp, reason);
      else pending.push({ sid, exp, reason });
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await polling;
      await Promise.all(writes);
    },
  };
}
