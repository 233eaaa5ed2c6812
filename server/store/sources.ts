// archive_sources: the kept keys (sealed), what each is, and how its last read went.
import type { Queryable } from './db';

export interface SourceRow {
  id: string;
  key_fingerprint: string;
  sealed_key: string;
  key_kind: string;
  label: string;
  created_at: Date;
  last_read_at: Date | null;
  last_error: string | null;
  disabled_at: Date | null;
}

/** A source as listed: its row without the sealed key, with what it covers. */
export interface SourceSummary extends Omit<SourceRow, 'sealed_key'> {
  projects: number;
  operations: number;
  backfilled: boolean;
}

export interface NewSource {
  id: string;
  fingerprint: string;
  sealedKey: string;
  keyKind: string;
  label: string;
  now: Date;
}

/**
 * Keeps a key once: a second keep of the same key (by fingerprint) returns the source already there,
 * enabled again with the newly sealed key (a source disabled by a 401 comes back when its key works again).
 */
export async function keepSource(db: Queryable, source: NewSource): Promise<{ id: string; created: boolean }> {
  const { rows } = await db.query<{ id: string; created: boolean }>(
    `INSERT INTO archive_sources (id, key_fingerprint, sealed_key, key_kind, label, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key_fingerprint) DO UPDATE SET sealed_key = EXCLUDED.sealed_key, key_kind = EXCLUDED.key_kind,
       label = EXCLUDED.label, disabled_at = NULL, last_error = NULL, last_error_at = NULL
     RETURNING id, (xmax = 0) AS created`,
    [source.id, source.fingerprint, source.sealedKey, source.keyKind, source.label, source.now],
  );
  const row = rows[0];
  if (!row) throw new Error('Keeping the source returned no row.');
  return row;
}

const SUMMARY = `SELECT s.id, s.key_fingerprint, s.key_kind, s.label, s.created_at, s.last_read_at, s.last_error, s.disabled_at,
    (SELECT count(*)::int FROM archive_projects p WHERE p.source_id = s.id) AS projects,
    (SELECT count(*)::int FROM operations o WHERE o.project_id IN (SELECT p.project_id FROM archive_projects p WHERE p.source_id = s.id)) AS operations,
    COALESCE((SELECT bool_and(p.backfilled) FROM archive_projects p WHERE p.source_id = s.id), false) AS backfilled
  FROM archive_sources s`;

export async function listSourceSummaries(db: Queryable): Promise<SourceSummary[]> {
  return (await db.query<SourceSummary>(`${SUMMARY} ORDER BY s.created_at, s.id`)).rows;
}

export async function sourceSummary(db: Queryable, id: string): Promise<SourceSummary | undefined> {
  return (await db.query<SourceSummary>(`${SUMMARY} WHERE s.id = $1`, [id])).rows[0];
}

/** Whether the key with this fingerprint is kept and read with (not disabled). */
export async function isKeyKept(db: Queryable, fingerprint: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM archive_sources WHERE key_fingerprint = $1 AND disabled_at IS NULL', [fingerprint])).rows.length > 0;
}

/** The sources the collector reads with (not disabled), sealed keys included. */
export async function enabledSources(db: Queryable): Promise<SourceRow[]> {
  return (await db.query<SourceRow>('SELECT * FROM archive_sources WHERE disabled_at IS NULL ORDER BY created_at, id')).rows;
}

export async function findSource(db: Queryable, id: string): Promise<SourceRow | undefined> {
  return (await db.query<SourceRow>('SELECT * FROM archive_sources WHERE id = $1', [id])).rows[0];
}

/** Removes a source and its sealed key (its projects go with it; the operations stay in the record). */
export async function deleteSource(db: Queryable, id: string): Promise<boolean> {
  return (await db.query<{ id: string }>('DELETE FROM archive_sources WHERE id = $1 RETURNING id', [id])).rows.length > 0;
}

export async function recordSourceRead(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE archive_sources SET last_read_at = $2, last_error = NULL, last_error_at = NULL WHERE id = $1', [id, now]);
}

/** A read that failed, in words; `disable` (a 401) stops the collector reading with it. */
export async function recordSourceError(db: Queryable, id: string, message: string, now: Date, disable: boolean): Promise<void> {
  await db.query(
    `UPDATE archive_sources SET last_error = $2, last_error_at = $3, disabled_at = CASE WHEN $4 THEN COALESCE(disabled_at, $3) ELSE disabled_at END WHERE id = $1`,
    [id, message, now, disable],
  );
}

/**
 * Names every kept key by today's fingerprint (server/seal/seal.ts). Sources kept before the archive and
 * the session shared one fingerprint carry the archive's own (43 characters, against 32): each such key is
 * opened and named again, so the session whose key it is still sees it as its own. Returns how many changed.
 */
export async function refingerprintSources(db: Queryable, fingerprintOf: (sealedKey: string) => string | null, fingerprintLength: number): Promise<number> {
  const { rows } = await db.query<{ id: string; sealed_key: string }>('SELECT id, sealed_key FROM archive_sources WHERE length(key_fingerprint) <> $1', [
    fingerprintLength,
  ]);
  let changed = 0;
  for (const row of rows) {
    const fingerprint = fingerprintOf(row.sealed_key);
    if (fingerprint === null) continue;
    await db.query('UPDATE archive_sources SET key_fingerprint = $2 WHERE id = $1', [row.id, fingerprint]);
    changed += 1;
  }
  return changed;
}
