// One kept source, read into the store: its projects (its own, then each organization's), every
// project's whole history once (pages of 1,000, newest first, following the cursor), then each project
// followed by the Activity view's rule (busy ones at the poll interval, idle ones in turn, the budget),
// with a whole re-read now and then so what the API no longer lists is marked gone (and kept).
import * as z from 'zod/mini';
import type { Log } from '../log/logger';
import { createOutage } from '../log/outage';
import { OperationSchema, OrganizationsResponseSchema, ProjectsPageSchema } from '../../src/api/schemas';
import { planNext, type RequestKind, type ScheduledProject } from '../../src/lib/activity-scheduler';
import { isInFlight } from '../../src/model/operation-status';
import type { Db } from '../store';
import { StoreUnavailableError } from '../store/db';
import { recordProjectRead, replaceSourceProjects, sourceProjects, type ProjectSeen } from '../store/archive-projects';
import { markGone, upsertOperations, type ListedOperation } from '../store/operations';
import { recordSourceError, recordSourceRead } from '../store/sources';
import type { ApiAnswer } from '../proxy/api-reader';
import type { Clock } from '../lib/clock';
import type { Pacer } from './pacer';

export const HISTORY_PAGE_SIZE = 1_000;
/** The newest page a followed project is read by: new operations past it page on. */
export const NEWEST_PAGE_SIZE = 100;
const PROJECTS_PAGE_SIZE = 400;
/** After a failure of the API's (not the key's): wait this long, then start the source's reading over. */
export const FAILURE_PAUSE_MS = 30_000;
/** While the console's store does not answer, it is asked this often; the reading starts over once it answers. */
export const STORE_PROBE_MS = 2_000;

export const KEY_REJECTED =
  'The API rejected this key (401: revoked or invalid), so the archive stopped reading with it. Keep history again with a working key.';

export interface SourceReaderOptions {
  db: Db;
  sourceId: string;
  /** Reads a path with the source's own key. */
  read: <T>(path: string, schema: z.ZodMiniType<T>, signal: AbortSignal) => Promise<ApiAnswer<T>>;
  pacer: Pacer;
  clock: Clock;
  budgetPerMinute: number;
  intervalMs: number;
  /** How often each project's whole history is read again (what was not listed is then gone). */
  fullReadMs: number;
  log: Log;
  /** A project's whole history was read for the first time. */
  onBackfilled?: () => void;
}

class KeyRejected extends Error {}
class ReadFailed extends Error {}

// Each listed operation checked against the API's schema; the object itself is kept as it came.
const RawPageSchema = z.object({ operations: z.array(z.unknown()), pagination: z.optional(z.object({ cursor: z.string() })) });

interface ProjectState extends ScheduledProject {
  fullReadAt: number | null;
}

export async function readSource(options: SourceReaderOptions, signal: AbortSignal): Promise<void> {
  const { db, sourceId, read, pacer, clock, log } = options;
  const now = () => new Date(clock.now());
  // A function, not the property: each await may have aborted it.
  const isAborted = () => signal.aborted;

  const get = async <T>(kind: RequestKind, path: string, schema: z.ZodMiniType<T>): Promise<T | undefined> => {
    for (;;) {
      await pacer.turn(kind, signal);
      if (isAborted()) return undefined;
      const answer = await read(path, schema, signal);
      if (answer.ok) return answer.data;
      if (isAborted()) return undefined;
      if (answer.status === 401) throw new KeyRejected(KEY_REJECTED);
      if (answer.status === 429) {
        pacer.rateLimited(answer.retryAfterMs);
        continue;
      }
      if (answer.status === 403 || answer.status === 404) return undefined;
      throw new ReadFailed(answer.message);
    }
  };

  const listProjects = async (): Promise<ProjectSeen[]> => {
    const orgs = (await get('list', '/users/me/organizations', OrganizationsResponseSchema))?.organizations ?? [];
    const found = new Map<string, ProjectSeen>();
    for (const owner of [undefined, ...orgs]) {
      let cursor: string | undefined;
      for (;;) {
        const query = new URLSearchParams({ limit: String(PROJECTS_PAGE_SIZE) });
        if (owner) query.set('org_id', owner.id);
        if (cursor) query.set('cursor', cursor);
        const page = await get('list', `/projects?${query}`, ProjectsPageSchema);
        if (!page || isAborted()) break;
        for (const p of page.projects) {
          const orgName = orgs.find((org) => org.id === p.org_id)?.name;
          found.set(p.id, { id: p.id, name: p.name, orgName: found.get(p.id)?.orgName ?? orgName });
        }
        const last = page.projects.at(-1);
        if (page.projects.length < PROJECTS_PAGE_SIZE || !last) break;
        cursor = page.pagination?.cursor ?? last.id;
      }
    }
    return [...found.values()];
  };

  /** One page of a project's operations recorded; undefined when the project is gone or the reading stopped. */
  const readPage = async (projectId: string, kind: RequestKind, limit: number, cursor: string | undefined, duringBackfill: boolean) => {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set('cursor', cursor);
    const page = await get(kind, `/projects/${encodeURIComponent(projectId)}/operations?${query}`, RawPageSchema);
    if (!page || isAborted()) return undefined;
    const listed: ListedOperation[] = [];
    for (const body of page.operations) {
      const parsed = OperationSchema.safeParse(body);
      if (parsed.success) listed.push({ operation: parsed.data, body });
    }
    // A page by cursor goes on from the previous one of this read: the store orders a second split between them.
    const result = await upsertOperations(db, projectId, listed, now(), duringBackfill, cursor !== undefined);
    return { count: page.operations.length, added: result.added, cursor: page.pagination?.cursor, operations: listed.map((l) => l.operation) };
  };

  /** The whole history, newest first: the backfill, or a re-read that marks what is no longer listed. */
  const readWhole = async (project: ProjectState, kind: 'backfill' | 'full-read') => {
    const start = now();
    let cursor: string | undefined;
    let busy = false;
    let first = true;
    for (;;) {
      const page = await readPage(project.id, project.busy ? 'busy' : 'idle', HISTORY_PAGE_SIZE, cursor, kind === 'backfill');
      if (!page) return;
      if (first) busy = page.operations.some((op) => isInFlight(op, clock.now()));
      first = false;
      if (page.count < HISTORY_PAGE_SIZE || !page.cursor) break;
      cursor = page.cursor;
    }
    const gone = await markGone(db, project.id, start, now());
    if (gone > 0)
      log(`Archive: ${gone} operation(s) of project ${project.id} are no longer listed by the API; kept, marked gone`, {
        event: 'archive.marked_gone',
        source: sourceId,
        project: project.id,
        operations: gone,
      });
    await recordProjectRead(db, sourceId, project.id, now(), kind);
    project.checkedAt = clock.now();
    project.fullReadAt = clock.now();
    project.busy = busy;
    if (kind === 'backfill') options.onBackfilled?.();
  };

  /** The newest page (and more while every operation on it is new). */
  const readNewest = async (project: ProjectState) => {
    let cursor: string | undefined;
    let busy = false;
    let first = true;
    for (;;) {
      const page = await readPage(project.id, project.busy ? 'busy' : 'idle', NEWEST_PAGE_SIZE, cursor, false);
      if (!page) return;
      if (first) busy = page.operations.some((op) => isInFlight(op, clock.now()));
      first = false;
      if (page.added < NEWEST_PAGE_SIZE || !page.cursor) break;
      cursor = page.cursor;
    }
    await recordProjectRead(db, sourceId, project.id, now(), 'newest');
    project.checkedAt = clock.now();
    project.busy = busy;
  };

  // A source whose reads fail (the API unreachable, the store down) says so once, and once when they work again.
  const failing = createOutage(log, { event: 'archive.source_failing', fields: { source: sourceId }, over: `Archive: source ${sourceId} reads again` });
  let projects: ProjectState[] = [];
  let listedAt: number | null = null;
  const refreshProjects = async () => {
    const seen = await listProjects();
    if (isAborted()) return;
    await replaceSourceProjects(db, sourceId, seen);
    const rows = await sourceProjects(db, sourceId);
    const before = new Map(projects.map((p) => [p.id, p]));
    projects = rows.map((row) => {
      const known = before.get(row.project_id);
      if (known) return known;
      // A project read to its end before (by this process or another) is followed, not read whole again.
      return { id: row.project_id, checkedAt: null, busy: false, fullReadAt: row.backfilled ? (row.last_full_read_at?.getTime() ?? null) : null };
    });
    listedAt = clock.now();
    for (const project of projects) {
      if (isAborted()) return;
      if (project.fullReadAt === null) await readWhole(project, 'backfill');
    }
    await recordSourceRead(db, sourceId, now());
    failing.recovered();
  };

  const untilStoreAnswers = async () => {
    while (!isAborted()) {
      await clock.wait(STORE_PROBE_MS, signal);
      if (isAborted()) return;
      if (
        await sourceProjects(db, sourceId).then(
          () => true,
          () => false,
        )
      )
        return;
    }
  };

  while (!isAborted()) {
    try {
      await refreshProjects();
      while (!isAborted()) {
        const { sent, slowDown } = pacer.state();
        const plan = planNext({
          now: clock.now(),
          budgetPerMinute: options.budgetPerMinute,
          intervalMs: options.intervalMs,
          projects,
          listedAt,
          listing: false,
          sent,
          slowDown,
        });
        if (plan.at > clock.now()) await clock.wait(plan.at - clock.now(), signal);
        if (isAborted()) return;
        if (plan.step.kind === 'list') {
          await refreshProjects();
          continue;
        }
        const { projectId } = plan.step;
        const project = projects.find((p) => p.id === projectId);
        if (!project) continue;
        if (project.fullReadAt === null || clock.now() - project.fullReadAt >= options.fullReadMs) await readWhole(project, 'full-read');
        else await readNewest(project);
        await recordSourceRead(db, sourceId, now());
        failing.recovered();
      }
    } catch (error) {
      if (isAborted()) return;
      if (error instanceof KeyRejected) {
        await recordSourceError(db, sourceId, error.message, now(), true);
        log(`Archive: source ${sourceId}: the API rejected its key (401); the source is disabled until its key is kept again`, {
          event: 'archive.key_rejected',
          level: 'warn',
          source: sourceId,
        });
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof StoreUnavailableError) {
        // The store's outage is not the API's: nothing to wait out at the API, so the reading resumes as soon as the store answers.
        failing.failed(`Archive: source ${sourceId}: ${message}; reading it again once the store answers (asked every ${STORE_PROBE_MS / 1_000} s)`);
        await untilStoreAnswers();
        continue;
      }
      await recordSourceError(db, sourceId, message, now(), false).catch(() => undefined);
      failing.failed(`Archive: source ${sourceId}: ${message}; reading it again every ${FAILURE_PAUSE_MS / 1_000} s`);
      await clock.wait(FAILURE_PAUSE_MS, signal);
    }
  }
}
