// `/api/v2/*` on the console's origin: the session's key added as `Authorization` here, on the server,
// and forwarded to the simulator or API_URL. A 401 from the API ends the session (the answer expires
// the cookie). A request that brings its own Authorization (curl, neonctl, the API client) is passed
// on as it is: the session is for the console's pages. Beside it, the simulator's fault control
// (sim/faults.ts), never under the API's prefix and never forwarded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_API_BODY_BYTES } from '../http/body';
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
}

export function serveApi(req: IncomingMessage, res: ServerResponse, { sessions, fetchApi, serve }: ApiRouteOptions): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  return answerSafely(res, async () => {
    let authorization: string | undefined;
    if (req.headers.authorization === undefined) {
      // The server's own 401, coded so the page never blames the key for it unless the API did.
      const session = await openSession(sessions, req, res, MAX_API_BODY_BYTES);
      if (!session) return;
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
