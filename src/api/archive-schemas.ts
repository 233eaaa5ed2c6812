import * as z from 'zod/mini';
import { OperationSchema } from './schemas';

// The archive's wire (docs/archive.md): what the console's server answers about its own record of operations
// (server/store, server/collector; server/archive/) and what the page reads (api/archive.ts,
// screens/archive). Written once, imported by both sides. Every path is the console's own, beside
// /session: never under /api/v2, which is only ever the platform's API.

export const ARCHIVE_API_PATH = '/archive';
export const ARCHIVE_SOURCES_PATH = `${ARCHIVE_API_PATH}/sources`;

/** `/archive/sources/:sourceId` (DELETE: Remove). */
export const archiveSourcePath = (sourceId: string) => `${ARCHIVE_SOURCES_PATH}/${encodeURIComponent(sourceId)}`;

/**
 * `/archive/projects/:projectId/operations`: one project's history from the store, filtered by the
 * history's own address parameters (status, action, branch, compute, q, from, to: docs/console.md, answered by
 * each filter field's SQL form in model/filter-fields.ts), newest first, paged by `cursor`
 * and `limit` (≤ 1,000) like the API's list. With `after` (an operation's id), the record past the API's
 * end: what the archive holds after that operation in its order, each marked kept.
 */
export const archiveOperationsPath = (projectId: string) => `${ARCHIVE_API_PATH}/projects/${encodeURIComponent(projectId)}/operations`;

/** `/archive/activity`: what Activity shows for the projects the archive covers, read from the store. */
export const ARCHIVE_ACTIVITY_PATH = `${ARCHIVE_API_PATH}/activity`;

/**
 * `/archive/projects`: what the archive says of the projects the session's own kept key reaches, in one answer
 * (the projects list's "in progress" and "last operation", and which projects an operation's page asks the
 * archive about first).
 */
export const ARCHIVE_PROJECTS_PATH = `${ARCHIVE_API_PATH}/projects`;

/** What the collector is doing with a source. */
export const SourceStateSchema = z.enum(['backfilling', 'following', 'disabled']);
export type SourceState = z.infer<typeof SourceStateSchema>;

/** A kept key as the page shows it: never the key, nor any part of it. */
export const ArchiveSourceSchema = z.object({
  id: z.string(),
  /** The key's kind as the API describes it (personal, organization, project); open string. */
  keyKind: z.string(),
  /** Who or what the key belongs to, for people to tell sources apart (a user's name or email, an organization's name). */
  label: z.string(),
  /** Whether this source was kept with the signed-in session's own key. */
  isOwnKey: z.boolean(),
  state: SourceStateSchema,
  projects: z.number(),
  operations: z.number(),
  createdAt: z.string(),
  /** ISO time of the last read that succeeded; null before the first. */
  lastReadAt: z.nullable(z.string()),
  /** The last read's failure in words (a 401 says the key was rejected and the source is disabled). */
  lastError: z.nullable(z.string()),
});
export type ArchiveSource = z.infer<typeof ArchiveSourceSchema>;

export const ArchiveSourcesSchema = z.object({ sources: z.array(ArchiveSourceSchema) });
export type ArchiveSources = z.infer<typeof ArchiveSourcesSchema>;

export const ArchiveSourceResponseSchema = z.object({ source: ArchiveSourceSchema });

/** An operation from the store: the API's object as last seen, and whether the API still lists it. */
export const ArchivedOperationSchema = z.extend(OperationSchema, {
  /** ISO time the API was last seen to list it; set only once it no longer does (kept by the archive). */
  keptSince: z.optional(z.string()),
});
export type ArchivedOperation = z.infer<typeof ArchivedOperationSchema>;

/** How complete the store's record of a project is. */
export const ArchiveCoverageSchema = z.object({
  /** The whole history has been read once (before that, older operations may still be missing). */
  backfilled: z.boolean(),
  /** ISO time of the project's last successful read. */
  lastReadAt: z.nullable(z.string()),
  /**
   * Set when no kept key follows the project any more (each that reached it was refused, so disabled): the ISO
   * time the archive last read it. What it kept is served; it is no longer the whole record.
   */
  stoppedAt: z.optional(z.string()),
});
export type ArchiveCoverage = z.infer<typeof ArchiveCoverageSchema>;

export const ArchivedOperationsPageSchema = z.object({
  archived: z.literal(true),
  operations: z.array(ArchivedOperationSchema),
  pagination: z.optional(z.object({ cursor: z.string() })),
  archive: ArchiveCoverageSchema,
  /** On the first page of a filter with more pages: how many operations match in all, so the page says the count at once. */
  total: z.optional(z.number()),
});
export type ArchivedOperationsPage = z.infer<typeof ArchivedOperationsPageSchema>;

/**
 * A project no kept key reaches: an answer, not an error (the page then reads the API as before), so the
 * normal path of a console without a kept key has no failed request in it.
 */
export const NotArchivedSchema = z.object({ archived: z.literal(false) });
export type NotArchived = z.infer<typeof NotArchivedSchema>;

/** What `/archive/projects/:projectId/operations` answers: a page of the record, or that there is none. */
export const ArchiveOperationsAnswerSchema = z.union([ArchivedOperationsPageSchema, NotArchivedSchema]);
export type ArchiveOperationsAnswer = z.infer<typeof ArchiveOperationsAnswerSchema>;

/** One covered project as the projects list shows it: work in flight now, and when its newest operation was created. */
export const ArchivedProjectSummarySchema = z.object({
  id: z.string(),
  /** Operations in flight (operation-status.ts's rule) among those the API still lists. */
  inFlight: z.number(),
  /** ISO time of the newest operation the archive holds; null when it holds none. */
  lastOperationAt: z.nullable(z.string()),
  /** How many operations the archive holds of it (a long history reads as such). */
  operations: z.number(),
  backfilled: z.boolean(),
});
export type ArchivedProjectSummary = z.infer<typeof ArchivedProjectSummarySchema>;

export const ArchivedProjectsSchema = z.object({ projects: z.array(ArchivedProjectSummarySchema) });
export type ArchivedProjects = z.infer<typeof ArchivedProjectsSchema>;

/**
 * Activity from the store: the covered projects the session's key can read, their operations in flight
 * and those that ended since `since` (an ISO query parameter; default the last 24 hours).
 */
export const ArchiveActivitySchema = z.object({
  projects: z.array(z.object({ id: z.string(), name: z.string(), orgName: z.optional(z.string()), lastReadAt: z.nullable(z.string()) })),
  operations: z.array(ArchivedOperationSchema),
});
export type ArchiveActivity = z.infer<typeof ArchiveActivitySchema>;
