import { http, HttpResponse, type RequestHandler } from 'msw';
import {
  ARCHIVE_ACTIVITY_PATH,
  ARCHIVE_SOURCES_PATH,
  NOT_ARCHIVED_CODE,
  type ArchiveActivity,
  type ArchivedOperation,
  type ArchivedOperationsPage,
  type ArchiveSource,
  type ArchiveSources,
} from '../../src/api/archive-schemas';
import { NOT_SIGNED_IN_CODE, NOT_SIGNED_IN_MESSAGE } from '../../src/config/session';
import { filtersFromSearch, operationFilter } from '../../src/features/history/filters/filters';
import { isInFlight } from '../../src/lib/operation-status';
import type { ControlPlane } from '../../sim/control-plane';
import { heldKey } from './console-server';

// The component tests' stand-in for the console server's /archive routes (server/archive, helper
// `archive`), answering the wire contract (src/api/archive-schemas.ts) from the simulator's data: a
// covered project's operations are the simulator's own plus those the test says the archive kept after
// the API dropped them; the filters are read by the same fields (features/history/filters/fields.ts) the
// real server answers with their SQL form. By default nothing is kept and nothing covered: every
// project is `not_archived`, as on a console nobody has pressed "Keep history" on.

export interface CoveredProject {
  backfilled: boolean;
  lastReadAt: string | null;
}

export interface ArchiveStandIn {
  /** Kept keys, with the key each was kept with (a row says isOwnKey when it is the held session's). */
  sources: (Omit<ArchiveSource, 'isOwnKey'> & { key: string })[];
  /** The projects the archive answers for. */
  covered: Map<string, CoveredProject>;
  /** Operations the API no longer lists, kept by the archive, per project. */
  kept: Map<string, ArchivedOperation[]>;
  /** Projects "Keep history" covers (the key's reach, as the collector would find it). */
  reach: string[];
  /** Every /archive request the page sent, in order. */
  requests: URL[];
  cover(projectId: string, coverage?: Partial<CoveredProject>): void;
}

export function createArchiveStandIn(): ArchiveStandIn {
  const covered = new Map<string, CoveredProject>();
  return {
    sources: [],
    covered,
    kept: new Map(),
    reach: [],
    requests: [],
    cover(projectId, coverage = {}) {
      covered.set(projectId, { backfilled: true, lastReadAt: null, ...coverage });
    },
  };
}

const notSignedIn = () => HttpResponse.json({ code: NOT_SIGNED_IN_CODE, message: NOT_SIGNED_IN_MESSAGE }, { status: 401 });
const byNewest = (a: { created_at: string }, b: { created_at: string }) => Date.parse(b.created_at) - Date.parse(a.created_at);
const DAY_MS = 86_400_000;

/** Handlers for the /archive routes over `cp` (read per request: tests rebuild it) and the stand-in's state. */
export function archiveRoutes(cp: () => ControlPlane, archive: ArchiveStandIn): RequestHandler[] {
  const note = (request: Request) => void archive.requests.push(new URL(request.url));
  const shown = (source: ArchiveStandIn['sources'][number]): ArchiveSource => {
    const { key, ...rest } = source;
    return { ...rest, isOwnKey: key === heldKey() };
  };
  const operationsOf = (projectId: string): ArchivedOperation[] => {
    const listed = cp().operationsOf(projectId);
    const ids = new Set(listed.map((op) => op.id));
    const kept = (archive.kept.get(projectId) ?? []).filter((op) => !ids.has(op.id));
    return [...listed, ...kept].sort(byNewest);
  };

  return [
    http.get(`*${ARCHIVE_SOURCES_PATH}`, ({ request }) => {
      note(request);
      if (heldKey() === null) return notSignedIn();
      return HttpResponse.json<ArchiveSources>({ sources: archive.sources.map(shown) });
    }),
    http.post(`*${ARCHIVE_SOURCES_PATH}`, ({ request }) => {
      note(request);
      const key = heldKey();
      if (key === null) return notSignedIn();
      const existing = archive.sources.find((s) => s.key === key);
      if (existing) return HttpResponse.json({ source: shown(existing) });
      for (const projectId of archive.reach) archive.cover(projectId, { backfilled: false });
      const source = {
        id: `src-${archive.sources.length + 1}`,
        key,
        keyKind: 'personal',
        label: 'Demo User',
        state: 'backfilling' as const,
        projects: archive.reach.length,
        operations: 0,
        createdAt: new Date(cp().clock.now()).toISOString(),
        lastReadAt: null,
        lastError: null,
      };
      archive.sources.push(source);
      return HttpResponse.json({ source: shown(source) }, { status: 201 });
    }),
    http.delete(`*${ARCHIVE_SOURCES_PATH}/:sourceId`, ({ request, params }) => {
      note(request);
      const key = heldKey();
      if (key === null) return notSignedIn();
      const index = archive.sources.findIndex((s) => s.id === params.sourceId && s.key === key);
      if (index < 0) return HttpResponse.json({ code: 'not_found', message: 'No such source.' }, { status: 404 });
      archive.sources.splice(index, 1);
      return new HttpResponse(null, { status: 204 });
    }),
    http.get('*/archive/projects/:projectId/operations', ({ request, params }) => {
      note(request);
      if (heldKey() === null) return notSignedIn();
      const projectId = String(params.projectId);
      const coverage = archive.covered.get(projectId);
      if (!coverage) return HttpResponse.json({ code: NOT_ARCHIVED_CODE, message: 'The archive does not cover this project.' }, { status: 404 });
      const url = new URL(request.url);
      const limit = Math.min(1_000, Math.max(1, Number(url.searchParams.get('limit') ?? 100)));
      const cursor = url.searchParams.get('cursor');
      const matches = operationFilter(filtersFromSearch(url.searchParams));
      const after = operationsOf(projectId).filter((op) => matches(op) && (cursor === null || Date.parse(op.created_at) < Date.parse(cursor)));
      const page = after.slice(0, limit);
      const last = page.at(-1);
      return HttpResponse.json<ArchivedOperationsPage>({
        operations: page,
        ...(last ? { pagination: { cursor: last.created_at } } : {}),
        archive: coverage,
      });
    }),
    http.get(`*${ARCHIVE_ACTIVITY_PATH}`, ({ request }) => {
      note(request);
      if (heldKey() === null) return notSignedIn();
      const now = cp().clock.now();
      const projects: ArchiveActivity['projects'] = [];
      const operations: ArchivedOperation[] = [];
      for (const [projectId, coverage] of archive.covered) {
        const project = cp().findProject(projectId);
        if (!project) continue;
        projects.push({ id: projectId, name: project.name, lastReadAt: coverage.lastReadAt });
        operations.push(...operationsOf(projectId).filter((op) => isInFlight(op, now) || now - Date.parse(op.updated_at) <= DAY_MS));
      }
      return HttpResponse.json<ArchiveActivity>({ projects, operations });
    }),
  ];
}
