// `/api/v2/*` on the console's origin: the session's key added as `Authorization` here, on the server,
// and forwarded to the simulator or API_URL. A 401 from the API ends the session (the answer expires
// the cookie). A request that brings its own Authorization (curl, neonctl, the API client) is passed
// on as it is: the session is for the console's pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerSafely, jsonErrorResponse, readApiCall, sendFetchResponse, type ApiFetch } from './node-adapter';
import type { Sessions } from './session/sessions';

export const NOT_SIGNED_IN = 'Not signed in: sign in with an API key on the console’s key screen.';
export const SESSION_ENDED = 'Your session has ended (signed out, expired, or the server restarted without SESSION_SECRET). Sign in again.';

export function serveApi(req: IncomingMessage, res: ServerResponse, { sessions, fetchApi }: { sessions: Sessions; fetchApi: ApiFetch }): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  return answerSafely(res, async () => {
    const call = await readApiCall(req, res);
    // The cookie is for this server alone; the API never sees it.
    call.headers.delete('cookie');
    let withSession = false;
    if (!call.headers.has('authorization')) {
      const current = sessions.read(req);
      if (current.state !== 'open') {
        if (current.state === 'ended') res.setHeader('Set-Cookie', sessions.expire(req));
        await sendFetchResponse(res, jsonErrorResponse(401, current.state === 'ended' ? SESSION_ENDED : NOT_SIGNED_IN), req.method);
        return;
      }
      call.headers.set('authorization', `Bearer ${current.session.key}`);
      withSession = true;
    }
    const response = await fetchApi(call);
    if (withSession && response.status === 401) res.setHeader('Set-Cookie', sessions.end(req));
    await sendFetchResponse(res, response, req.method);
  });
}
