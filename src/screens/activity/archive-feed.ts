import { EMPTY_FEED, type ActivityFeed } from '../../api/activity-feed';
import type { ArchiveActivity } from '../../api/archive-schemas';

/**
 * The activity feed with the archive's projects folded in: each covered project's operations are the
 * archive's (as of its last read), in place of any page the scheduler read, and a covered project the
 * list has not found yet is added. When the archive covers every project the key reaches, it is the list.
 */
export function withArchive(
  feed: ActivityFeed | undefined,
  archive: ArchiveActivity | undefined,
  { answeredAt, coversAll }: { answeredAt: number; coversAll: boolean },
): ActivityFeed | undefined {
  if (!archive || archive.projects.length === 0) return feed;
  const base = feed ?? EMPTY_FEED;
  const listed = base.listedAt === null ? (base.listing?.found ?? []) : base.projects;
  const known = new Set(listed.map((p) => p.id));
  const added = archive.projects.filter((p) => !known.has(p.id)).map((p) => ({ id: p.id, name: p.name, ...(p.orgName ? { orgName: p.orgName } : {}) }));
  const checks = { ...base.checks };
  for (const project of archive.projects) {
    const at = project.lastReadAt ? Date.parse(project.lastReadAt) : answeredAt;
    checks[project.id] = { at, operations: archive.operations.filter((op) => op.project_id === project.id) };
  }
  if (coversAll)
    return { ...base, projects: base.listedAt === null ? added : [...listed, ...added], listedAt: base.listedAt ?? answeredAt, listing: null, checks };
  if (base.listedAt !== null) return { ...base, projects: [...listed, ...added], checks };
  // The first list is still being read: the covered projects count among those it has found.
  return { ...base, listing: base.listing && { ...base.listing, found: [...listed, ...added] }, checks };
}
