// What of the archive a session reaches without asking the API per project: the projects its own kept key
// reaches (as the collector last listed them), their figures, and their operations of the last day (Activity).
// Without a kept key of its own, the lists are empty and the page reads the API.
import type { ArchivedOperation, ArchivedProjects } from '../../src/api/archive-schemas';
import { OperationSchema } from '../../src/api/schemas';
import { sendError, sendJson } from '../http/answers';
import type { SessionContext } from '../session/route-guard';
import { coveredProjects, sourceProjects } from '../store/archive-projects';
import type { Db } from '../store/db';
import { projectSummaries, recentOperations, type StoredOperation } from '../store/operations';
import { listSourceSummaries } from '../store/sources';
import type { Store } from '../store/store';

const ACTIVITY_WINDOW_MS = 24 * 60 * 60_000;
const ACTIVITY_MAX_OPERATIONS = 2_000;

export interface Reach {
  store: Pick<Store, 'forReading'>;
  /** The session's key's fingerprint. */
  own: string;
  now: number;
}

/** An operation on the wire; `kept`: every row is one the API no longer lists (the record past the API's end). */
export function operationOnWire(row: StoredOperation, kept = false): ArchivedOperation | undefined {
  const parsed = OperationSchema.safeParse(row.body);
  if (!parsed.success) return undefined;
  return { ...parsed.data, ...(row.gone_at || kept ? { keptSince: row.last_listed_at.toISOString() } : {}) };
}

/** The session's own kept source that still reads, if any. */
async function ownSource(db: Db, own: string) {
  return (await listSourceSummaries(db)).find((source) => source.key_fingerprint === own && !source.disabled_at);
}

/** `GET /archive/projects`: the projects the session's own kept key reaches, with their figures, as Activity's reach. */
export async function archivedProjects({ store, own, now }: Reach, { res }: SessionContext): Promise<void> {
  const db = await store.forReading();
  const mine = db ? await ownSource(db, own) : undefined;
  if (!db || !mine) {
    const none: ArchivedProjects = { projects: [] };
    sendJson(res, 200, none);
    return;
  }
  const reach = await sourceProjects(db, mine.id);
  const summaries = await projectSummaries(
    db,
    reach.map((p) => p.project_id),
    new Date(now),
  );
  const figures = new Map(summaries.map((row) => [row.project_id, row]));
  const answer: ArchivedProjects = {
    projects: reach.map((p) => {
      const row = figures.get(p.project_id);
      return {
        id: p.project_id,
        inFlight: row?.in_flight ?? 0,
        lastOperationAt: row?.last_created_at?.toISOString() ?? null,
        operations: row?.operations ?? 0,
        backfilled: p.backfilled,
      };
    }),
  };
  sendJson(res, 200, answer);
}

/** `GET /archive/activity?since=`: the operations of the last day (or since `since`) of the projects the session's own kept key reaches. */
export async function archivedActivity({ store, own, now: at }: Reach, { req, res }: SessionContext): Promise<void> {
  const sinceText = new URL(req.url ?? '/', 'http://console.invalid').searchParams.get('since');
  const since = sinceText === null ? at - ACTIVITY_WINDOW_MS : Date.parse(sinceText);
  if (Number.isNaN(since) || (sinceText !== null && !/^\d{4}-\d{2}-\d{2}T/.test(sinceText))) {
    sendError(res, 400, 'since must be an ISO time.', 'invalid_since');
    return;
  }
  const db = await store.forReading();
  if (!db) {
    sendJson(res, 200, { projects: [], operations: [] });
    return;
  }
  const mine = await ownSource(db, own);
  const reach = mine ? new Set((await sourceProjects(db, mine.id)).map((p) => p.project_id)) : new Set<string>();
  const projects = (await coveredProjects(db)).filter((p) => reach.has(p.id));
  const rows = await recentOperations(
    db,
    projects.map((p) => p.id),
    new Date(since),
    new Date(at),
    ACTIVITY_MAX_OPERATIONS,
  );
  sendJson(res, 200, {
    projects: projects.map((p) => ({
      id: p.id,
      name: p.name,
      ...(p.org_name ? { orgName: p.org_name } : {}),
      lastReadAt: p.last_read_at?.toISOString() ?? null,
    })),
    operations: rows.map((row) => operationOnWire(row)).filter((op) => op !== undefined),
  });
}
