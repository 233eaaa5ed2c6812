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

export async function recordProjectRead(
  db: Queryable,
  sourceId: string,
  projectId: string,
  now: Date,
  whole: 'backfill' | 'full-read' | 'newest',
): Promise<void> {
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

/**
 * How well the archive covers a project, over the enabled sources that reach it; undefined when none does. A
 * disabled source (its key refused) follows nothing any more, so its reach covers nothing new either.
 */
export async function projectCoverage(db: Queryable, projectId: string): Promise<Coverage | undefined> {
  const { rows } = await db.query<{ backfilled: boolean | null; last_read_at: Date | null; sources: number }>(
    `SELECT bool_or(p.backfilled) AS backfilled, max(p.last_read_at) AS last_read_at, count(*)::int AS sources
     FROM archive_projects p JOIN archive_sources s ON s.id = p.source_id WHERE p.project_id = $1 AND s.disabled_at IS NULL`,
    [projectId],
  );
  const row = rows[0];
  if (!row || row.sources === 0) return undefined;
  return { backfilled: row.backfilled ?? false, lastReadAt: row.last_read_at };
}

/**
 * When the archive stopped following a project no enabled source reaches, but a disabled one did: the latest
 * of its sources' last reads of it (or, never read, when the source was disabled). Undefined otherwise.
 */
export async function stoppedFollowing(db: Queryable, projectId: string): Promise<Date | undefined> {
  const { rows } = await db.query<{ stopped_at: Date | null }>(
    `SELECT max(coalesce(p.last_read_at, s.disabled_at)) AS stopped_at
     FROM archive_projects p JOIN archive_sources s ON s.id = p.source_id WHERE p.project_id = $1 AND s.disabled_at IS NOT NULL`,
    [projectId],
  );
  return rows[0]?.stopped_at ?? undefined;
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
