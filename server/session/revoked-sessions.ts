// Sessions ended on the server (signed out, or their key refused by the API), refused until they would have
// expired anyway, with why. A sealed cookie stays valid wherever it is copied, so this is what makes sign-out
// end a session and not just in the browser that asked. In memory; a running server keeps it as the list of
// the store's (stored-revocations.ts), unbounded there. Bounded by default: past MAX_ENTRIES the entries
// closest to expiry go first.
import type { RevocationReason } from '../store/revoked-sessions';

export type { RevocationReason } from '../store/revoked-sessions';

const MAX_ENTRIES = 50_000;

export interface RevokedSessions {
  revoke: (sid: string, exp: number, reason?: RevocationReason) => void;
  isRevoked: (sid: string) => boolean;
  /** Why the session was ended; undefined while it is not (or no longer need be) refused. */
  reasonOf: (sid: string) => RevocationReason | undefined;
  size: () => number;
  /**
   * Resolves once the revocations made here so far are where every instance reads them (the store): sign-out
   * answers after it. At once where there is no other instance.
   */
  spread: () => Promise<void>;
}

export function createRevokedSessions(now: () => number = Date.now, maxEntries = MAX_ENTRIES): RevokedSessions {
  const revoked = new Map<string, { exp: number; reason: RevocationReason }>();
  const prune = () => {
    const time = now();
    for (const [sid, { exp }] of revoked) if (exp <= time) revoked.delete(sid);
    if (revoked.size <= maxEntries) return;
    const bySoonest = [...revoked].sort((a, b) => a[1].exp - b[1].exp);
    for (const [sid] of bySoonest.slice(0, revoked.size - maxEntries)) revoked.delete(sid);
  };
  const reasonOf = (sid: string): RevocationReason | undefined => {
    const entry = revoked.get(sid);
    if (entry === undefined) return undefined;
    if (entry.exp > now()) return entry.reason;
    revoked.delete(sid);
    return undefined;
  };
  return {
    revoke(sid, exp, reason = 'signed-out') {
      if (exp <= now()) return;
      // Already ended: its first reason stands (the store's polls read each revocation again).
      if (revoked.has(sid)) return;
      revoked.set(sid, { exp, reason });
      if (revoked.size > maxEntries || revoked.size % 1024 === 0) prune();
    },
    isRevoked: (sid) => reasonOf(sid) !== undefined,
    reasonOf,
    size: () => revoked.size,
    spread: () => Promise.resolve(),
  };
}
