// `/api/v2/*` on the console's origin: the session's key added as `Authorization` here, on the server,
// and forwarded to the simulator or API_URL. A 401 from the API ends the session (the answer expires
// the cookie). A request that brings its own Authorization (curl, neonctl, the API client) is passed
// on as it is: the session is for the console's pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerSafely, jsonErrorResponse, readApiCall, sendFetchResponse, type ApiFetch } from './node-adapter';
import { NOT_SIGNED_IN_CODE, NOT_SIGNED_IN_MESSAGE, SESSION_ENDED_CODES, SESSION_ENDED_MESSAGES } from '../src/config/session';
import type { Sessions } from './session/sessions';

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
        // The server's own 401, coded so the page never blames the key for it (only the API's 401 does).
        const answer =
          current.state === 'ended'
            ? jsonErrorResponse(401, SESSION_ENDED_MESSAGES[current.why], SESSION_ENDED_CODES[current.why])
            : jsonErrorResponse(401, NOT_SIGNED_IN_MESSAGE, NOT_SIGNED_IN_CODE);
        if (current.state === 'ended') res.setHeader('Set-Cookie', sessions.expire(req));
        await sendFetchResponse(res, answer, req.method);
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
