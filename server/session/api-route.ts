// `/api/v2/*` on the console's origin: the session's key added as `Authorization` here, on the server,
// and forwarded to the simulator or API_URL. A 401 from the API ends the session (the answer expires
// the cookie). A request that brings its own Authorization (curl, neonctl, the API client) is passed
// on as it is: the session is for the console's pages. Beside it, the simulator's fault control
// (sim/faults.ts), never under the API's prefix and never forwarded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { apiRuleOf, type ApiRule } from '../../src/model/api-roles';
import { roleReaches, type Person } from '../../src/model/roles';
import type { TeamDoor } from './team-door';
import { discardBody, MAX_API_BODY_BYTES } from '../http/body';
import { answerSafely, readApiCall, sendFetchResponse, type ApiFetch, type NodeHandler } from '../http/node-bridge';
import { API_PREFIX, FAULTS_CONTROL_PATH } from '../http/paths';
import { ALL_METHODS, type Handler } from '../http/route';
import { sendText } from '../http/send-text';
import { withRequestId } from '../log/request-context';
import { authorizationOf } from '../proxy/api-reader';
import type { ForwardServe } from '../proxy/forward-proxy';
import { endRejectedSession, openSession, type Route } from './route-guard';
import type { Sessions } from './sessions';

export interface ApiRouteOptions {
  sessions: Sessions;
  fetchApi: ApiFetch;
  serve?: ForwardServe | undefined;
  /** Team sign-in (docs/team.md): each call's role by method and path (src/model/api-roles.ts); changes and refusals recorded. */
  team?: TeamDoor | undefined;
}

/** The operation ids in the API's answer to a change (`operations: [{id}]`), for "Started by". */
export function operationIdsOf(text: string): string[] {
  try {
    const parsed = OperationIdsSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.operations ?? []).map((operation) => operation.id) : [];
  } catch {
    return [];
  }
}

const OperationIdsSchema = z.object({ operations: z.optional(z.array(z.object({ id: z.string() }))) });

/** A person's change through the API: forwarded, its answer read for the operations it started, recorded, then sent. */
async function forwardChange(req: IncomingMessage, res: ServerResponse, fetchApi: ApiFetch, team: TeamDoor, person: Person, rule: ApiRule): Promise<void> {
  const call = await readApiCall(req, res);
  call.headers.delete('cookie');
  withRequestId(call.headers);
  call.headers.set('authorization', authorizationOf(team.teamKey));
  const response = await fetchApi(call);
  const text = response.type === 'error' ? '' : await response.text();
  const ok = response.status >= 200 && response.status < 300;
  await team.record({
    person,
    action: rule.action ?? `${req.method ?? ''} ${rule.target}`,
    target: rule.target,
    status: response.type === 'error' ? 502 : response.status,
    ...(rule.projectId === undefined ? {} : { projectId: rule.projectId }),
    operationIds: ok ? operationIdsOf(text) : [],
  });
  if (response.type === 'error') {
    res.destroy();
    return;
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  await sendFetchResponse(
    res,
    new Response(response.status === 204 || response.status === 304 ? null : text, { status: response.status, statusText: response.statusText, headers }),
    req.method,
  );
}

export function serveApi(req: IncomingMessage, res: ServerResponse, { sessions, fetchApi, serve, team }: ApiRouteOptions): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  return answerSafely(res, async () => {
    let authorization: string | undefined;
    if (req.headers.authorization === undefined) {
      // The server's own 401, coded so the page never blames the key for it unless the API did.
      const session = await openSession(sessions, req, res, MAX_API_BODY_BYTES);
      if (!session) return;
      const person = session.person;
      if (team && person) {
        const path = new URL(req.url ?? '/', 'http://console.invalid').pathname.slice(API_PREFIX.length) || '/';
        const rule = apiRuleOf(req.method ?? 'GET', path);
        if (!roleReaches(person.role, rule.role)) {
          await discardBody(req);
          await team.refuse(res, person, rule.role, rule.may, rule.action ?? `${req.method ?? ''} ${path}`, rule.target, rule.projectId);
          return;
        }
        if (rule.action !== undefined) {
          await forwardChange(req, res, fetchApi, team, person, rule);
          return;
        }
      }
      authorization = authorizationOf(session.key);
    }
    const endOnRefusal = (status: number) => {
      if (authorization !== undefined && status === 401) endRejectedSession(sessions, req, res);
    };
    // The forwarding proxy answers Node's request itself (no Fetch objects: every open page's polls come
    // this way), passing on only the headers the API needs; the simulator speaks Fetch.
    if (serve) {
      await serve(req, res, { authorization, onStatus: endOnRefusal });
      return;
    }
    const call = await readApiCall(req, res);
    // The cookie is for this server alone; the API never sees it. The request's id (a client's, once checked) does.
    call.headers.delete('cookie');
    withRequestId(call.headers);
    if (authorization !== undefined) call.headers.set('authorization', authorization);
    const response = await fetchApi(call);
    endOnRefusal(response.status);
    await sendFetchResponse(res, response, req.method);
  });
}

export interface ApiRoutesOptions extends ApiRouteOptions {
  /** The simulator's fault control, when mounted (dev, SIM_FAULTS=1); otherwise its paths answer a plain 404. */
  faultControl?: NodeHandler | undefined;
}

/** `/api/v2` and everything under it, every method (the API says which it takes); the fault control beside it. */
export function apiRoutes(options: ApiRoutesOptions): Route[] {
  const api: Handler = ({ req, res }) => serveApi(req, res, options);
  const faults: Handler = async ({ req, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    // Unmounted, it answers like any unknown path would, not with the app's HTML.
    if (options.faultControl) await options.faultControl(req, res);
    else await sendText(req, res, 404, 'Not found');
  };
  return [API_PREFIX, `${API_PREFIX}/*`]
    .map((url): Route => ({ method: ALL_METHODS, url, config: { needs: 'none' }, handler: api }))
    .concat([FAULTS_CONTROL_PATH, `${FAULTS_CONTROL_PATH}/*`].map((url): Route => ({ method: ALL_METHODS, url, config: { needs: 'none' }, handler: faults })));
}
