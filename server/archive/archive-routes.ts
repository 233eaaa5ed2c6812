// The console's /archive routes (src/api/archive-schemas.ts is their wire): the signed-in session keeps
// its key as a source, lists and removes it, and reads a project's history and Activity from the store.
// What a session sees of sources: only the one kept with its own key (another person's key, label and
// reach are theirs); what it reads from the store: only projects its own key can read (project-access.ts).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import {
  ARCHIVE_ACTIVITY_PATH,
  ARCHIVE_API_PATH,
  ARCHIVE_PROJECTS_PATH,
  ARCHIVE_SOURCES_PATH,
  type ArchiveCoverage,
  type ArchivedOperation,
  type ArchivedProjects,
  type ArchiveSource,
  type NotArchived,
} from '../../src/api/archive-schemas';
import { CurrentUserSchema, OperationSchema } from '../../src/api/schemas';
import { filtersFromSearch } from '../../src/model/filters';
import { sendAnswer, sendError, sendJson, sendMethodNotAllowed } from '../http/answers';
import { MAX_FORM_BODY_BYTES, readBody } from '../http/body';
import { decodeSegment } from '../http/paths';
import { refusalAnswer, type ApiReader } from '../proxy/api-reader';
import type { ProjectAccess } from '../proxy/project-access';
import type { Seal } from '../seal/seal';
import type { Session } from '../session/session-crypto';
import { sendSessionClosed, type Sessions } from '../session/sessions';
import { coveredProjects, projectCoverage, sourceProjects, stoppedFollowing } from '../store/archive-projects';
import { operationPosition, operationsPage, projectSummaries, recentOperations, type OperationsCursor, type StoredOperation } from '../store/operations';
import { deleteSource, findSource, keepSource, listSourceSummaries, sourceSummary, type SourceSummary } from '../store/sources';
import type { Store } from '../store/store';

export const MAX_ARCHIVE_LIMIT = 1_000;
const ACTIVITY_WINDOW_MS = 24 * 60 * 60_000;
const ACTIVITY_MAX_OPERATIONS = 2_000;

export interface ArchiveContext {
  /** Keeping a source opens the store; reads never open PGlite to find that nothing was ever kept. */
  store: Pick<Store, 'db' | 'forReading'>;
  sessions: Sessions;
  read: ApiReader;
  seal: Seal;
  access: ProjectAccess;
  /** Tells the collector a source was kept or removed (it also looks every few seconds). */
  wake?: () => void;
  now?: () => number;
}

export function isArchivePath(path: string): boolean {
  return path === ARCHIVE_API_PATH || path.startsWith(`${ARCHIVE_API_PATH}/`);
}

function stateOf(source: SourceSummary): ArchiveSource['state'] {
  if (source.disabled_at) return 'disabled';
  return source.backfilled && source.last_read_at ? 'following' : 'backfilling';
}

function sourceOnWire(source: SourceSummary, ownFingerprint: string): ArchiveSource {
  return {
    id: source.id,
    keyKind: source.key_kind,
    label: source.label,
    isOwnKey: source.key_fingerprint === ownFingerprint,
    state: stateOf(source),
    projects: source.projects,
    operations: source.operations,
    createdAt: source.created_at.toISOString(),
    lastReadAt: source.last_read_at?.toISOString() ?? null,
    lastError: source.last_error,
  };
}

/** An operation on the wire; `kept`: every row is one the API no longer lists (the record past the API's end). */
function operationOnWire(row: StoredOperation, kept = false): ArchivedOperation | undefined {
  const parsed = OperationSchema.safeParse(row.body);
  if (!parsed.success) return undefined;
  return { ...parsed.data, ...(row.gone_at || kept ? { keptSince: row.last_listed_at.toISOString() } : {}) };
}

// The cursor is the page's last row (created_at to the microsecond, its rank in that second, id), opaque to the page.
const CursorSchema = z.object({ c: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)), r: z.int(), i: z.string() });
const encodeCursor = (row: StoredOperation) => Buffer.from(JSON.stringify({ c: row.created_key, r: row.rank, i: row.id })).toString('base64url');

function decodeCursor(text: string): OperationsCursor | undefined {
  try {
    const parsed = CursorSchema.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    return parsed.success ? { createdAt: parsed.data.c, rank: parsed.data.r, id: parsed.data.i } : undefined;
  } catch {
    return undefined;
  }
}

const LimitSchema = z.pipe(z.string().check(z.regex(/^\d{1,4}$/)), z.transform(Number));

/** Who the key is, for people to tell sources apart: a personal key's user, else its kind. */
async function labelOf(read: ApiReader, session: Session): Promise<string> {
  if (session.kind === 'personal') {
    const me = await read(session.key, '/users/me', CurrentUserSchema);
    if (me.ok) return [me.data.name, me.data.last_name].filter(Boolean).join(' ') || me.data.email || 'Personal key';
    return 'Personal key';
  }
  return session.kind === 'organization' ? 'Organization key' : 'API key';
}

export async function serveArchiveRoute(req: IncomingMessage, res: ServerResponse, context: ArchiveContext): Promise<void> {
  const { sessions, seal, store } = context;
  const now = context.now ?? Date.now;
  res.setHeader('Cache-Control', 'no-store');
  const url = new URL(req.url ?? '/', 'http://console.invalid');
  const path = url.pathname;
  const method = req.method ?? 'GET';

  const current = sessions.read(req);
  if (current.state !== 'open') {
    await sendSessionClosed(req, res, sessions, current, MAX_FORM_BODY_BYTES);
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') await readBody(req, MAX_FORM_BODY_BYTES);
  const session = current.session;
  const own = seal.fingerprint(session.key);

  if (path === ARCHIVE_SOURCES_PATH) {
    if (method === 'POST') {
      const db = await store.db();
      const kept = await keepSource(db, {
        id: `src-${randomBytes(9).toString('base64url')}`,
        fingerprint: own,
        sealedKey: seal.seal('kept-key', session.key),
        keyKind: session.kind,
        label: await labelOf(context.read, session),
        now: new Date(now()),
      });
      context.wake?.();
      const summary = await sourceSummary(db, kept.id);
      if (!summary) throw new Error('The kept source was not found again.');
      sendJson(res, kept.created ? 201 : 200, { source: sourceOnWire(summary, own) });
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      const db = await store.forReading();
      const sources = (db ? await listSourceSummaries(db) : []).filter((source) => source.key_fingerprint === own);
      sendJson(res, 200, { sources: sources.map((source) => sourceOnWire(source, own)) });
      return;
    }
    sendMethodNotAllowed(res, method, ['GET', 'HEAD', 'POST']);
    return;
  }

  const sourceMatch = /^\/archive\/sources\/([^/]+)$/.exec(path);
  if (sourceMatch?.[1]) {
    const id = decodeSegment(sourceMatch[1]);
    if (method !== 'DELETE') {
      sendMethodNotAllowed(res, method, ['DELETE']);
      return;
    }
    if (id === undefined) {
      sendError(res, 400, 'The source id is not a valid path segment.', 'invalid_id');
      return;
    }
    // Only the session whose key it is removes a source; any other is told it does not exist.
    const db = await store.forReading();
    const source = db ? await findSource(db, id) : undefined;
    if (!source || source.key_fingerprint !== own) {
      sendError(res, 404, 'No such source.');
      return;
    }
    if (db) await deleteSource(db, id);
    context.wake?.();
    res.statusCode = 204;
    res.end();
    return;
  }

  const operationsMatch = /^\/archive\/projects\/([^/]+)\/operations$/.exec(path);
  if ((operationsMatch || path === ARCHIVE_ACTIVITY_PATH || path === ARCHIVE_PROJECTS_PATH) && method !== 'GET' && method !== 'HEAD') {
    sendMethodNotAllowed(res, method, ['GET', 'HEAD']);
    return;
  }
  if (operationsMatch?.[1]) {
    const projectId = decodeSegment(operationsMatch[1]);
    if (projectId === undefined) {
      sendError(res, 400, 'The project id is not a valid path segment.', 'invalid_id');
      return;
    }
    const limitText = url.searchParams.get('limit');
    const limit = limitText === null ? MAX_ARCHIVE_LIMIT : LimitSchema.safeParse(limitText).data;
    if (limit === undefined || limit < 1 || limit > MAX_ARCHIVE_LIMIT) {
      sendError(res, 400, `limit must be a whole number from 1 to ${MAX_ARCHIVE_LIMIT}.`, 'invalid_limit');
      return;
    }
    const cursorText = url.searchParams.get('cursor');
    const cursor = cursorText === null || cursorText === '' ? undefined : decodeCursor(cursorText);
    if (cursorText && !cursor) {
      sendError(res, 400, 'cursor is not one this server gave.', 'invalid_cursor');
      return;
    }
    // No kept key reaches it: an answer the page expects (it reads the API instead), not a failure. A server that
    // never kept a key has no record of any project: said without asking the API.
    const notArchived = () => {
      const none: NotArchived = { archived: false };
      sendJson(res, 200, none);
    };
    const db = await store.forReading();
    if (!db) {
      notArchived();
      return;
    }
    const access = await context.access.check(session.sid, session.key, projectId);
    if (access.kind !== 'readable') {
      // Exactly the API's answer to this key; a 401 ends the session as on /api/v2.
      if (access.kind === 'revoked') res.setHeader('Set-Cookie', sessions.end(req, 'rejected'));
      sendAnswer(res, refusalAnswer(access.answer));
      return;
    }
    const started = performance.now();
    // `after`: the record past the API's end, from the operation the API listed last on (kept rows, each marked).
    const afterId = url.searchParams.get('after');
    const followed = await projectCoverage(db, projectId);
    // A project only a disabled source reached: what it kept is served, saying since when nothing was followed.
    const stoppedAt = followed ? undefined : await stoppedFollowing(db, projectId);
    const coverage: ArchiveCoverage | undefined = followed
      ? { backfilled: followed.backfilled, lastReadAt: followed.lastReadAt?.toISOString() ?? null }
      : stoppedAt
        ? { backfilled: false, lastReadAt: stoppedAt.toISOString(), stoppedAt: stoppedAt.toISOString() }
        : undefined;
    if (!coverage && afterId === null) {
      notArchived();
      return;
    }
    let from = cursor;
    if (afterId !== null && !from) {
      from = await operationPosition(db, projectId, afterId);
      if (!from) {
        // The archive has not read the operation the API ended on: it holds nothing known to be past it.
        sendJson(res, 200, { archived: true, operations: [], archive: coverage ?? { backfilled: false, lastReadAt: null } });
        return;
      }
    }
    const rows = await operationsPage(db, projectId, filtersFromSearch(url.searchParams), from, limit);
    const operations = rows.map((row) => operationOnWire(row, afterId !== null)).filter((op) => op !== undefined);
    const last = rows.at(-1);
    res.setHeader('Server-Timing', `db;dur=${(performance.now() - started).toFixed(1)}`);
    sendJson(res, 200, {
      archived: true,
      operations,
      ...(last ? { pagination: { cursor: encodeCursor(last) } } : {}),
      archive: coverage ?? { backfilled: false, lastReadAt: null },
    });
    return;
  }

  if (path === ARCHIVE_PROJECTS_PATH) {
    // The projects the session's own kept key reaches (as the collector last listed them), as Activity's reach:
    // known without asking the API; without a kept key of its own, the list is empty and costs no store read.
    const db = await store.forReading();
    const mine = db ? (await listSourceSummaries(db)).find((source) => source.key_fingerprint === own && !source.disabled_at) : undefined;
    if (!db || !mine) {
      const none: ArchivedProjects = { projects: [] };
      sendJson(res, 200, none);
      return;
    }
    const reach = await sourceProjects(db, mine.id);
    const figures = new Map(
      (
        await projectSummaries(
          db,
          reach.map((p) => p.project_id),
          new Date(now()),
        )
      ).map((row) => [row.project_id, row]),
    );
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
    return;
  }

  if (path === ARCHIVE_ACTIVITY_PATH) {
    const at = now();
    const sinceText = url.searchParams.get('since');
    const since = sinceText === null ? at - ACTIVITY_WINDOW_MS : Date.parse(sinceText);
    if (Number.isNaN(since) || (sinceText !== null && !/^\d{4}-\d{2}-\d{2}T/.test(sinceText))) {
      sendError(res, 400, 'since must be an ISO time.', 'invalid_since');
      return;
    }
    // The projects this session's own kept key reaches (as it last listed them): those its key can read,
    // known without asking the API per viewer. Without a kept key of its own, the page reads the API.
    const db = await store.forReading();
    if (!db) {
      sendJson(res, 200, { projects: [], operations: [] });
      return;
    }
    const mine = (await listSourceSummaries(db)).find((source) => source.key_fingerprint === own && !source.disabled_at);
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
    return;
  }

  sendError(res, 404, `No archive route at ${path}.`);
}
