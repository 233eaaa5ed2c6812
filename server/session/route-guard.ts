// The session's two rules every route shares, written once: a route that needs a session gets the open one or
// the one 401 (sendSessionClosed), and a 401 from the API to the session's key ends the session (the answer
// expires its cookie while its head has not gone out). Every route's declaration is typed here, so a handler
// that needs a session is handed it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteContext, RouteOptions } from '../http/route';
import type { Session } from './session-crypto';
import { sendSessionClosed, type Sessions } from './sessions';

export interface SessionContext extends RouteContext {
  session: Session;
  /** The API answered the session's key with `status`: a 401 ends the session. */
  apiAnswered: (status: number) => void;
}

/** A route as its room declares it: a handler that needs a session is given it. */
export type Route = RouteOptions<RouteContext, 'none'> | RouteOptions<SessionContext, 'session'>;

/** A 401 from the API to the session's key: the session ends on every instance, and the answer expires its cookie if it still can. */
export function endRejectedSession(sessions: Pick<Sessions, 'end'>, req: IncomingMessage, res: ServerResponse): void {
  const cookie = sessions.end(req, 'rejected');
  if (!res.headersSent) res.setHeader('Set-Cookie', cookie);
}

/** The request's open session, or undefined once the one 401 went out (its body read up to `bodyLimit` first). */
export async function openSession(sessions: Sessions, req: IncomingMessage, res: ServerResponse, bodyLimit: number): Promise<Session | undefined> {
  const current = sessions.read(req);
  if (current.state === 'open') return current.session;
  await sendSessionClosed(req, res, sessions, current, bodyLimit);
  return undefined;
}

/** The context of a route that needs a session, once it is open. */
export function withSession(sessions: Sessions, ctx: RouteContext, session: Session): SessionContext {
  return {
    ...ctx,
    session,
    apiAnswered: (status) => {
      if (status === 401) endRejectedSession(sessions, ctx.req, ctx.res);
    },
  };
}

/** Declares a route that needs a session: its handler is typed with the session it is given. */
export function sessionRoute(route: RouteOptions<SessionContext, 'session'>): Route {
  return route;
}

/** Whether a route needs nothing but the request (its handler takes no session). */
export function needsNothing(route: Route): route is RouteOptions<RouteContext, 'none'> {
  return route.config.needs === 'none';
}

/** Declares a route that needs nothing but the request. */
export function openRoute(route: RouteOptions<RouteContext, 'none'>): Route {
  return route;
}
