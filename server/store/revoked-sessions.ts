// revoked_sessions: sessions ended (signed out, or their key refused by the API) and why, refused by every
// instance that shares the store until they would have expired anyway (server/session/stored-revocations.ts
// keeps the in-memory list of them). Each one written is also announced on REVOCATIONS_CHANNEL, so the other
// instances hear of it at once instead of at their next read.
import type { Queryable } from './db';

/** Why a session was ended on the server: the person signed out, or the API refused its key. */
export type RevocationReason = 'signed-out' | 'rejected';

/** The NOTIFY channel a revocation is announced on; its payload is the revocation (RevocationAnnouncement's JSON). */
export const REVOCATIONS_CHANNEL = 'ops_console_revocations';

/** What an announcement carries: enough to refuse the session at once, with no read. */
export interface RevocationAnnouncement {
  sid: string;
  expires_ms: number;
  reason: RevocationReason;
}

export async function storeRevocation(db: Queryable, sid: string, expiresAt: Date, now: Date, reason: RevocationReason = 'signed-out'): Promise<void> {
  // The announcement goes out when the insert commits, never before.
  await db.query(
    `WITH written AS (
       INSERT INTO revoked_sessions (sid, expires_at, revoked_at, reason) VALUES ($1, $2, $3, $4) ON CONFLICT (sid) DO NOTHING RETURNING sid
     )
     SELECT pg_notify($5, json_build_object('sid', sid, 'expires_ms', $6::float8, 'reason', $4::text)::text) FROM written`,
    [sid, expiresAt, now, reason, REVOCATIONS_CHANNEL, expiresAt.getTime()],
  );
}

export interface RevocationRow {
  sid: string;
  expires_ms: number;
  revoked_ms: number;
  reason: RevocationReason;
}

/** Revocations still in force, recorded at or after `since` (epoch ms; 0: all of them). */
export async function revocationsSince(db: Queryable, since: number, now: Date): Promise<RevocationRow[]> {
  return (
    await db.query<RevocationRow>(
      `SELECT sid, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms, (extract(epoch FROM revoked_at) * 1000)::float8 AS revoked_ms, reason
       FROM revoked_sessions WHERE revoked_at >= to_timestamp($1::float8 / 1000) AND expires_at > $2 ORDER BY revoked_at`,
      [since, now],
    )
  ).rows;
}

export async function isRevokedInStore(db: Queryable, sid: string, now: Date): Promise<boolean> {
  return (await db.query<{ sid: string }>('SELECT sid FROM revoked_sessions WHERE sid = $1 AND expires_at > $2', [sid, now])).rows.length > 0;
}

/** Drops revocations of sessions that have expired anyway. */
export async function pruneRevocations(db: Queryable, now: Date): Promise<number> {
  return (await db.query<{ sid: string }>('DELETE FROM revoked_sessions WHERE expires_at <= $1 RETURNING sid', [now])).rows.length;
}
