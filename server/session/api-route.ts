// `/api/v2/*` on the console's origin: the session's key added as `Authorization` here, on the server,
// and forwarded to the simulator or API_URL. A 401 from the API ends the session (the answer expires
// the cookie). A request that brings its own Authorization (curl, neonctl, the API client) is passed
// on as it is: the session is for the console's pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_API_BODY_BYTES } from '../http/body';
import { answerSafely, readApiCall, sendFetchResponse, type ApiFetch } from '../http/node-bridge';
import { withRequestId } from '../log/request-context';
import { authorizationOf } from '../proxy/api-reader';
import type { ForwardServe } from '../proxy/forward-proxy';
import { sendSessionClosed, type Sessions } from './sessions';

export function serveApi(
  req: IncomingMessage,
  res: ServerResponse,
  { sessions, fetchApi, serve }: { sessions: Sessions; fetchApi: ApiFetch; serve?: ForwardServe | undefined },
): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  return answerSafely(res, async () => {
    let authorization: string | undefined;
    if (req.headers.authorization === undefined) {
      const current = sessions.read(req);
      if (current.state !== 'open') {
        // The server's own 401, coded so the page never blames the key for it unless the API did.
        await sendSessionClosed(req, res, sessions, current, MAX_API_BODY_BYTES);
        return;
      }
      authorization = authorizationOf(current.session.key);
    }
    const endOnRefusal = (status: number) => {
      if (authorization !== undefined && status === 401) res.setHeader('Set-Cookie', sessions.end(req, 'rejected'));
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
