// Sessions signed out, refused until they would have expired anyway. A sealed cookie stays valid wherever
// it is copied, so this is what makes sign-out end a session and not just in the browser that asked. In
// memory; the server keeps it as the cache of the store's list (stored-revocations.ts), unbounded there.
// Bounded by default: past MAX_ENTRIES the entries closest to expiry go first.

const MAX_ENTRIES = 50_000;

export interface RevokedSessions {
  revoke: (sid: string, exp: number) => void;
  isRevoked: (sid: string) => boolean;
  size: () => number;
}

export function createRevokedSessions(now: () => number = Date.now, maxEntries = MAX_ENTRIES): RevokedSessions {
  const revoked = new Map<string, number>();
  const prune = () => {
    const time = now();
    for (const [sid, exp] of revoked) if (exp <= time) revoked.delete(sid);
    if (revoked.size <= maxEntries) return;
    const bySoonest = [...revoked].sort((a, b) => a[1] - b[1]);
    for (const [sid] of bySoonest.slice(0, revoked.size - maxEntries)) revoked.delete(sid);
  };
  return {
    revoke(sid, exp) {
      if (exp <= now()) return;
      revoked.set(sid, exp);
      if (revoked.size > maxEntries || revoked.size % 1024 === 0) prune();
    },
    isRevoked(sid) {
      const exp = revoked.get(sid);
      if (exp === undefined) return false;
      if (exp > now()) return true;
      revoked.delete(sid);
      return false;
    },
    size: () => revoked.size,
  };
}
