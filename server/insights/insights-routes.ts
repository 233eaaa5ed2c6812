// The insights' routes (src/api/insights-schemas.ts is their wire), beside the archive's: `/archive/insights`
// (every archived project the session's key can read) and `/archive/projects/:id/insights` (one project, per
// action). The session's key decides what is shown, as for the archive's history: each project is read with it
// first (server/proxy/project-access.ts), and a key that cannot read one learns nothing of it, not even that
// the archive holds it. Answered to a socket, and in process to a page the server renders (its transport).
import findMyWay from 'find-my-way';
import { ARCHIVE_PROJECTS_PATH } from '../../src/api/archive-schemas';
import { CSV_FORMAT, DEFAULT_INSIGHT_WINDOW, INSIGHTS_PATH, InsightWindowSchema, type InsightRange, type InsightRow } from '../../src/api/insights-schemas';
import { errorAnswer, jsonAnswer, sendAnswer, type Answer } from '../http/answers';
import type { ApiCall } from '../http/node-bridge';
import { decodeSegment } from '../http/paths';
import { READ_METHODS } from '../http/route';
import { refusalAnswer } from '../proxy/api-reader';
import type { Access, ProjectAccess } from '../proxy/project-access';
import type { Seal } from '../seal/seal';
import { sessionRoute, type Route, type SessionContext } from '../session/route-guard';
import type { Session } from '../session/session-crypto';
import { coveredProjects, projectCoverage } from '../store/archive-projects';
import { STORE_UNAVAILABLE_CODE, StoreUnavailableError } from '../store/db';
import { isKeyKept } from '../store/sources';
import { createHeavyReads, type HeavyReads } from '../store/heavy-reads';
import type { Store } from '../store/store';
import { insightsCsv, insightsCsvName } from './insights-csv';
import { readOverview, readProjectInsights, type NamedProject } from './insight-reads';

/** How many projects' access is asked of the API at once for /archive/insights (each answer is kept a while). */
const ACCESS_CHECKS_AT_ONCE = 8;

/** The code of an answer that failed because the API did not answer the access check. */
const API_UNAVAILABLE_CODE = 'api_unavailable';

/** One project's insights, beside its archived history. */
export const PROJECT_INSIGHTS_ROUTE = `${ARCHIVE_PROJECTS_PATH}/:projectId/insights`;

export interface InsightsContext {
  store: Pick<Store, 'forReading'>;
  seal: Seal;
  access: ProjectAccess;
  /** The process's heavy reads (server/store/heavy-reads.ts): the insights read every operation of a window. */
  heavy?: HeavyReads;
  now?: () => number;
}

/** What a route answers, and whether the API refused the session's key on the way (its session then ends). */
interface Outcome {
  answer: Answer;
  rejected?: boolean;
}

export interface Insights {
  /** The routes, on a socket: the session from the request's cookie. */
  routes: Route[];
  /** The same answers in process, for an open session (a page the server renders reads them so). */
  fetch: (session: Session, call: ApiCall) => Promise<Response>;
}

/** `work` over `items`, at most `limit` at once, in order. */
async function eachLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * An access answer that is not "readable" as the session gets it: a refusal (401, 403, 404) exactly as the API gave
 * it, so a key learns nothing more here than there; an API that did not say (no answer, 5xx, 429) named as the API,
 * since the page asked the console's own route (docs/insights.md).
 */
function refused(access: Exclude<Access, { kind: 'readable' }>, what: string): Outcome {
  if (access.kind !== 'unknown') return { answer: refusalAnswer(access.answer), rejected: access.kind === 'revoked' };
  const { status, message, code, requestId, retryAfterMs } = access.answer;
  const answer = errorAnswer(
    status >= 400 ? status : 502,
    `The API did not say whether this key can read ${what} (${message}).`,
    code ?? API_UNAVAILABLE_CODE,
    requestId,
  );
  if (retryAfterMs !== undefined) answer.headers['Retry-After'] = String(Math.ceil(retryAfterMs / 1_000));
  return { answer };
}

function csvAnswer(rows: readonly InsightRow[], range: InsightRange, keyedBy: 'action' | 'project', what: string): Answer {
  return {
    status: 200,
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${insightsCsvName(what, range)}"` },
    body: insightsCsv(rows, range, keyedBy),
  };
}

export function createInsights(context: InsightsContext): Insights {
  const { seal, store, access } = context;
  const now = context.now ?? Date.now;
  const heavy = context.heavy ?? createHeavyReads();

  /** `projectId`: the one project's insights (as it came in the address), or every archived project's. */
  const answer = async (session: Session, url: URL, projectId: string | undefined): Promise<Outcome> => {
    const windowText = url.searchParams.get('window');
    const window = windowText === null ? DEFAULT_INSIGHT_WINDOW : InsightWindowSchema.safeParse(windowText).data;
    if (window === undefined) return { answer: errorAnswer(400, 'window must be one of 24h, 7d, 30d, 90d.', 'invalid_window') };
    const format = url.searchParams.get('format');
    if (format !== null && format !== CSV_FORMAT) return { answer: errorAnswer(400, 'format must be csv (or left out for JSON).', 'invalid_format') };
    const csv = format === CSV_FORMAT;
    const started = performance.now();
    const timing = (answer: Answer, accessMs: number): Answer => {
      answer.headers['Server-Timing'] = `access;dur=${accessMs.toFixed(1)}, db;dur=${(performance.now() - started - accessMs).toFixed(1)}`;
      return answer;
    };

    if (projectId !== undefined) {
      const id = decodeSegment(projectId);
      if (id === undefined) return { answer: errorAnswer(400, 'The project id is not a valid path segment.', 'invalid_id') };
      // Before the store says anything: exactly the API's answer to a key that cannot read the project.
      const checked = await access.check(session.sid, session.key, id);
      if (checked.kind !== 'readable') return refused(checked, 'the project');
      const accessMs = performance.now() - started;
      // A few at a time (the rest wait their turn), behind the cheap reads.
      const insights = await heavy.run(async () => {
        const db = await store.forReading();
        const coverage = db ? await projectCoverage(db, id) : undefined;
        const kept = db ? await isKeyKept(db, seal.fingerprint(session.key)) : false;
        return readProjectInsights(db, { id: checked.project.id, name: checked.project.name }, coverage, window, now(), kept);
      });
      return { answer: timing(csv ? csvAnswer(insights.actions, insights.range, 'action', checked.project.name) : jsonAnswer(200, insights), accessMs) };
    }

    const db = await store.forReading();
    const covered = db ? await coveredProjects(db) : [];
    // Every archived project is read with the session's key; only those it can read are counted, and nothing
    // else is said (no count of the others). A key the API refused ends the session; an API that did not say is
    // asked again on the next request.
    const checks = await eachLimited(covered, ACCESS_CHECKS_AT_ONCE, (project) => access.check(session.sid, session.key, project.id));
    const problem = checks.find((checked) => checked.kind === 'revoked') ?? checks.find((checked) => checked.kind === 'unknown');
    if (problem) return refused(problem, 'the archived projects');
    const readable: NamedProject[] = checks.flatMap((checked) => (checked.kind === 'readable' ? [{ id: checked.project.id, name: checked.project.name }] : []));
    const accessMs = performance.now() - started;
    const overview = await heavy.run(async () => {
      const kept = db ? await isKeyKept(db, seal.fingerprint(session.key)) : false;
      return readOverview(db, readable, window, now(), kept);
    });
    return { answer: timing(csv ? csvAnswer(overview.projects, overview.range, 'project', 'projects') : jsonAnswer(200, overview), accessMs) };
  };

  /** The store's outage is the store's, in words the page shows (a 503 naming it), on a socket or in process alike. */
  const answerOrOutage = async (session: Session, url: URL, projectId: string | undefined): Promise<Outcome> => {
    try {
      return await answer(session, url, projectId);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return { answer: errorAnswer(503, error.message, STORE_UNAVAILABLE_CODE) };
      throw error;
    }
  };

  const serve = async ({ req, res, session, params, apiAnswered }: SessionContext): Promise<void> => {
    const outcome = await answerOrOutage(session, new URL(req.url ?? '/', 'http://console.invalid'), params.projectId);
    // A 401 ends the session as on /api/v2.
    if (outcome.rejected) apiAnswered(401);
    sendAnswer(res, outcome.answer);
  };
  const routes = [INSIGHTS_PATH, PROJECT_INSIGHTS_ROUTE].map((url) =>
    sessionRoute({ method: READ_METHODS, url, config: { needs: 'session', role: 'viewer' }, handler: serve }),
  );
  const inProcess = findMyWay({ maxParamLength: 64 * 1024 });
  for (const route of routes) inProcess.on('GET', route.url, () => undefined);

  return {
    routes,
    async fetch(session, call) {
      if (call.method !== 'GET') return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } });
      const url = new URL(call.target, 'http://console.invalid');
      // The same declarations, matched in process (the path as sent: an undecodable id is the route's 400).
      const found = inProcess.find('GET', url.pathname.replaceAll('%', '%25'));
      if (!found) return new Response(null, { status: 404 });
      const { answer: result } = await answerOrOutage(session, url, found.params.projectId);
      return new Response(result.body, { status: result.status, headers: { ...result.headers, 'Cache-Control': 'no-store' } });
    },
  };
}
