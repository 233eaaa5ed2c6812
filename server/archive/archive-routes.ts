// The console's /archive routes (src/api/archive-schemas.ts is their wire): the signed-in session keeps
// its key as a source, lists and removes it, and reads a project's history and Activity from the store.
// What a session sees of sources: only the one kept with its own key (another person's key, label and
// reach are theirs); what it reads from the store: only projects its own key can read (project-access.ts).
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import {
  ARCHIVE_ACTIVITY_PATH,
  ARCHIVE_API_PATH,
  ARCHIVE_PROJECTS_PATH,
  ARCHIVE_SOURCES_PATH,
  type ArchiveCoverage,
  type ArchiveSource,
  type NotArchived,
} from '../../src/api/archive-schemas';
import { CurrentUserSchema } from '../../src/api/schemas';
import { filtersFromSearch } from '../../src/model/filters';
import { sendAnswer, sendError, sendJson } from '../http/answers';
import { MAX_FORM_BODY_BYTES, readBody } from '../http/body';
import { decodeSegment } from '../http/paths';
import { ALL_METHODS, READ_METHODS } from '../http/route';
import { refusalAnswer, type ApiReader } from '../proxy/api-reader';
import type { ProjectAccess } from '../proxy/project-access';
import type { Seal } from '../seal/seal';
import { sessionRoute, type Route, type SessionContext } from '../session/route-guard';
import type { Session } from '../session/session-crypto';
import { projectCoverage, stoppedFollowing } from '../store/archive-projects';
import { matchCount, operationPosition, operationsPage, type OperationsCursor, type StoredOperation } from '../store/operations';
import { deleteSource, findSource, keepSource, listSourceSummaries, sourceSummary, type SourceSummary } from '../store/sources';
import type { Store } from '../store/store';
import { archivedActivity, archivedProjects, operationOnWire, type Reach } from './archive-reach';

export const MAX_ARCHIVE_LIMIT = 1_000;

export interface ArchiveContext {
  /** Keeping a source opens the store; reads never open PGlite to find that nothing was ever kept. */
  store: Pick<Store, 'db' | 'forReading'>;
  read: ApiReader;
  seal: Seal;
  access: ProjectAccess;
  /** Tells the collector a source was kept or removed (it also looks every few seconds). */
  wake?: () => void;
  now?: () => number;
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

/** `POST /archive/sources`: the session's key kept as a source (200 when it was kept already). */
async function keep(context: ArchiveContext, { req, res, session }: SessionContext): Promise<void> {
  await readBody(req, MAX_FORM_BODY_BYTES);
  const { seal, store } = context;
  const own = seal.fingerprint(session.key);
  const db = await store.db();
  const kept = await keepSource(db, {
    id: `src-${randomBytes(9).toString('base64url')}`,
    fingerprint: own,
    sealedKey: seal.seal('kept-key', session.key),
    keyKind: session.kind,
    label: await labelOf(context.read, session),
    now: new Date((context.now ?? Date.now)()),
  });
  context.wake?.();
  const summary = await sourceSummary(db, kept.id);
  if (!summary) throw new Error('The kept source was not found again.');
  sendJson(res, kept.created ? 201 : 200, { source: sourceOnWire(summary, own) });
}

/** `GET /archive/sources`: only the source kept with the session's own key (another person's key, label and reach are theirs). */
async function listSources({ seal, store }: ArchiveContext, { res, session }: SessionContext): Promise<void> {
  const own = seal.fingerprint(session.key);
  const db = await store.forReading();
  const sources = (db ? await listSourceSummaries(db) : []).filter((source) => source.key_fingerprint === own);
  sendJson(res, 200, { sources: sources.map((source) => sourceOnWire(source, own)) });
}

/** `DELETE /archive/sources/:sourceId`: only the session whose key it is removes a source; any other is told it does not exist. */
async function remove(context: ArchiveContext, { req, res, session, params }: SessionContext): Promise<void> {
  await readBody(req, MAX_FORM_BODY_BYTES);
  const id = decodeSegment(params.sourceId ?? '');
  if (id === undefined) {
    sendError(res, 400, 'The source id is not a valid path segment.', 'invalid_id');
    return;
  }
  const db = await context.store.forReading();
  const source = db ? await findSource(db, id) : undefined;
  if (!source || source.key_fingerprint !== context.seal.fingerprint(session.key)) {
    sendError(res, 404, 'No such source.');
    return;
  }
  if (db) await deleteSource(db, id);
  context.wake?.();
  res.statusCode = 204;
  res.end();
}

/** `GET /archive/projects/:projectId/operations`: a page of a project's history from the store, for a key that can read the project. */
async function history(context: ArchiveContext, ctx: SessionContext): Promise<void> {
  const { res, session } = ctx;
  const url = new URL(ctx.req.url ?? '/', 'http://console.invalid');
  const projectId = decodeSegment(ctx.params.projectId ?? '');
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
  const db = await context.store.forReading();
  if (!db) {
    notArchived();
    return;
  }
  const access = await context.access.check(session.sid, session.key, projectId);
  if (access.kind !== 'readable') {
    // Exactly the API's answer to this key; a 401 ends the session as on /api/v2.
    ctx.apiAnswered(access.answer.status);
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
  const filters = filtersFromSearch(url.searchParams);
  const rows = await operationsPage(db, projectId, filters, from, limit);
  const operations = rows.map((row) => operationOnWire(row, afterId !== null)).filter((op) => op !== undefined);
  const last = rows.at(-1);
  // A first page that is not all of it says how many match, so a figure that links here reads the same at once.
  const total = !from && rows.length === limit ? await matchCount(db, projectId, filters) : undefined;
  res.setHeader('Server-Timing', `db;dur=${(performance.now() - started).toFixed(1)}`);
  sendJson(res, 200, {
    archived: true,
    operations,
    ...(last ? { pagination: { cursor: encodeCursor(last) } } : {}),
    archive: coverage ?? { backfilled: false, lastReadAt: null },
    ...(total === undefined ? {} : { total }),
  });
}

/** Anything else under /archive: the console's own JSON 404 (its body read first), never the app page. */
async function noRoute(ctx: SessionContext): Promise<void> {
  if (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD') await readBody(ctx.req, MAX_FORM_BODY_BYTES);
  sendError(ctx.res, 404, `No archive route at ${new URL(ctx.req.url ?? '/', 'http://console.invalid').pathname}.`);
}

/** The archive's routes; the insights' beside them are server/insights/'s. */
export function archiveRoutes(context: ArchiveContext): Route[] {
  const given =
    (serve: (context: ArchiveContext, ctx: SessionContext) => Promise<void>) =>
    (ctx: SessionContext): Promise<void> =>
      serve(context, ctx);
  const reach =
    (serve: (reach: Reach, ctx: SessionContext) => Promise<void>) =>
    (ctx: SessionContext): Promise<void> =>
      serve({ store: context.store, own: context.seal.fingerprint(ctx.session.key), now: (context.now ?? Date.now)() }, ctx);
  return [
    sessionRoute({ method: READ_METHODS, url: ARCHIVE_SOURCES_PATH, config: { needs: 'session', role: 'viewer' }, handler: given(listSources) }),
    sessionRoute({
      method: 'POST',
      url: ARCHIVE_SOURCES_PATH,
      config: { needs: 'session', role: 'admin', action: 'Keep history', may: 'keep history' },
      handler: given(keep),
    }),
    sessionRoute({
      method: 'DELETE',
      url: `${ARCHIVE_SOURCES_PATH}/:sourceId`,
      config: { needs: 'session', role: 'admin', action: 'Stop keeping history', may: 'stop keeping history' },
      handler: given(remove),
    }),
    sessionRoute({
      method: READ_METHODS,
      url: `${ARCHIVE_PROJECTS_PATH}/:projectId/operations`,
      config: { needs: 'session', role: 'viewer' },
      handler: given(history),
    }),
    sessionRoute({ method: READ_METHODS, url: ARCHIVE_PROJECTS_PATH, config: { needs: 'session', role: 'viewer' }, handler: reach(archivedProjects) }),
    sessionRoute({ method: READ_METHODS, url: ARCHIVE_ACTIVITY_PATH, config: { needs: 'session', role: 'viewer' }, handler: reach(archivedActivity) }),
    ...[ARCHIVE_API_PATH, `${ARCHIVE_API_PATH}/*`].map((url) =>
      sessionRoute({ method: ALL_METHODS, url, config: { needs: 'session', role: 'viewer' }, handler: noRoute }),
    ),
  ];
}
