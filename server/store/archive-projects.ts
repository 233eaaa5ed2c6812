// archive_projects: the projects each source reaches, whether each history was read to its end, and when.
import type { Queryable } from './db';

export interface ProjectSeen {
  id: string;
  name: string;
  orgName: string | undefined;
}

export interface ArchiveProjectRow {
  source_id: string;
  project_id: string;
  name: string;
  org_name: string | null;
  backfilled: boolean;
  last_read_at: Date | null;
  last_full_read_at: Date | null;
}

/** The source's projects as its key lists them now: new ones added, names refreshed, those no longer listed dropped. */
export async function replaceSourceProjects(db: Queryable, sourceId: string, projects: readonly ProjectSeen[]): Promise<void> {
  const list = JSON.stringify(projects.map((p) => ({ id: p.id, name: p.name, org_name: p.orgName ?? null })));
  await db.query(
    `WITH listed AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(id text, name text, org_name text)),
     dropped AS (DELETE FROM archive_projects WHERE source_id = $1 AND project_id NOT IN (SELECT id FROM listed))
     INSERT INTO archive_projects (source_id, project_id, name, org_name)
     SELECT $1, id, name, org_name FROM listed
     ON CONFLICT (source_id, project_id) DO UPDATE SET name = EXCLUDED.name, org_name = EXCLUDED.org_name`,
    [sourceId, list],
  );
}

export async function sourceProjects(db: Queryable, sourceId: string): Promise<ArchiveProjectRow[]> {
  return (await db.query<ArchiveProjectRow>('SELECT * FROM archive_projects WHERE source_id = $1 ORDER BY project_id', [sourceId])).rows;
}

export async function recordProjectRead(db: Queryable, sourceId: string, projectId: string, now: Date, whole: 'backfill' | 'full-read' | 'newest'): Promise<void> {
  await db.query(
    `UPDATE archive_projects SET last_read_at = $3,
       backfilled = backfilled OR $4 <> 'newest',
       last_full_read_at = CASE WHEN $4 <> 'newest' THEN $3 ELSE last_full_read_at END
     WHERE source_id = $1 AND project_id = $2`,
    [sourceId, projectId, now, whole],
  );
}

export interface Coverage {
  backfilled: boolean;
  lastReadAt: Date | null;
}

/** How well the archive covers a project, over every source that reaches it; undefined when none does. */
export async function projectCoverage(db: Queryable, projectId: string): Promise<Coverage | undefined> {
  const { rows } = await db.query<{ backfilled: boolean | null; last_read_at: Date | null; sources: number }>(
    'SELECT bool_or(backfilled) AS backfilled, max(last_read_at) AS last_read_at, count(*)::int AS sources FROM archive_projects WHERE project_id = $1',
    [projectId],
  );
  const row = rows[0];
  if (!row || row.sources === 0) return undefined;
  return { backfilled: row.backfilled ?? false, lastReadAt: row.last_read_at };
}

export interface CoveredProject {
  id: string;
  name: string;
  org_name: string | null;
  last_read_at: Date | null;
}

/** Every project some source reaches, once each. */
export async function coveredProjects(db: Queryable): Promise<CoveredProject[]> {
  return (
    await db.query<CoveredProject>(
      `SELECT project_id AS id, max(name) AS name, max(org_name) AS org_name, max(last_read_at) AS last_read_at
       FROM archive_projects GROUP BY project_id ORDER BY project_id`,
    )
  ).rows;
}
