// The audit trail's SQL (docs/team.md, "The audit trail"): one append-only row per change made through the console and
// per refusal, written before the answer goes out; read by /settings/audit (admins) page by page over the whole
// trail, filtered, exported; pruned past AUDIT_RETENTION_DAYS by the upkeep and by nothing else. The operation ids
// a change started say who started them ("Started by").
import { toBound, type AuditEntry, type AuditFilters, type AuditPage, type AuditRow } from '../../src/model/audit';
import type { Queryable } from './db';

export const AUDIT_PAGE_ROWS = 50;

interface RowRecord {
  id: string | number;
  at: Date | string;
  email: string;
  name: string;
  role: string | null;
  action: string;
  project_id: string | null;
  target: string;
  status: number;
  request_id: string | null;
  operation_ids: string[];
}

const rowOf = (record: RowRecord): AuditRow => ({
  id: String(record.id),
  at: new Date(record.at).toISOString(),
  email: record.email,
  name: record.name,
  role: record.role === 'viewer' || record.role === 'operator' || record.role === 'admin' ? record.role : null,
  action: record.action,
  projectId: record.project_id,
  target: record.target,
  status: record.status,
  requestId: record.request_id,
  operationIds: record.operation_ids,
});

export async function recordAudit(db: Queryable, entry: AuditEntry, at: Date = new Date()): Promise<void> {
  await db.query(
    `INSERT INTO audit_trail (at, email, name, role, action, project_id, target, status, request_id, operation_ids)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      at.toISOString(),
      entry.person.email,
      entry.person.name,
      entry.person.role,
      entry.action,
      entry.projectId ?? null,
      entry.target,
      entry.status,
      entry.requestId ?? null,
      [...(entry.operationIds ?? [])],
    ],
  );
}

/** One page of the trail, newest first, from `after` (the previous page's `next`). */
export async function readAudit(db: Queryable, filters: AuditFilters, after?: string, limit = AUDIT_PAGE_ROWS): Promise<AuditPage> {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: (n: string) => string, value: string | number) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filters.person) add((p) => `(email ILIKE ${p} OR name ILIKE ${p})`, `%${filters.person}%`);
  if (filters.action) add((p) => `action ILIKE ${p}`, `%${filters.action}%`);
  if (filters.project) add((p) => `project_id = ${p}`, filters.project);
  if (filters.from) add((p) => `at >= ${p}`, new Date(filters.from).toISOString());
  if (filters.to) add((p) => `at < ${p}`, toBound(filters.to).toISOString());
  if (after !== undefined && /^\d+$/.test(after)) add((p) => `id < ${p}`, Number(after));
  params.push(limit + 1);
  const result = await db.query<RowRecord>(
    `SELECT * FROM audit_trail ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  );
  const rows = result.rows.slice(0, limit).map(rowOf);
  return { rows, next: result.rows.length > limit ? (rows.at(-1)?.id ?? null) : null };
}

/** Who started each of `operationIds` through the console (those started elsewhere are absent: never a guess). */
export async function startersOf(db: Queryable, operationIds: readonly string[]): Promise<Map<string, { email: string; name: string }>> {
  const starters = new Map<string, { email: string; name: string }>();
  if (operationIds.length === 0) return starters;
  const result = await db.query<{ email: string; name: string; operation_ids: string[] }>(
    'SELECT email, name, operation_ids FROM audit_trail WHERE operation_ids && $1::text[]',
    [[...operationIds]],
  );
  for (const row of result.rows) for (const id of row.operation_ids) if (operationIds.includes(id)) starters.set(id, { email: row.email, name: row.name });
  return starters;
}

/** The retention (AUDIT_RETENTION_DAYS): rows older than it go; the one delete of the trail. */
export async function pruneAudit(db: Queryable, retentionDays: number, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000).toISOString();
  const result = await db.query<{ n: number }>('WITH gone AS (DELETE FROM audit_trail WHERE at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone', [
    cutoff,
  ]);
  return result.rows[0]?.n ?? 0;
}
