// The hooks every route shares, written once, for `npm start` and `npm run dev` (docs/architecture.md, "How a
// request finds its route"): once Fastify has found the route (server/routes/router.ts), security headers on
// every response, the request's id and log line under that route's template, the turn budget (checks are never
// held), the Host check (421; a balancer's checks come before it), the cross-site write rule (403), the 405 of a
// refusal (server/routes/refusals.ts), the session guard (401) for a route that needs one; then the route's
// handler, whose failures get the one error answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendMethodNotAllowed } from '../http/answers';
import { BodyTooLargeError, discardBody, MAX_FORM_BODY_BYTES } from '../http/body';
import { crossSiteWriteProblem } from '../http/csrf';
import { MISDIRECTED } from '../http/host-check';
import { beginRequest, type AnsweredRequest } from '../http/request-log';
import type { Method, RouteContext } from '../http/route';
import { securityHeaders, STRICT_TRANSPORT_SECURITY, wantsStrictTransport } from '../http/security-headers';
import type { AssetHandler } from '../http/static-assets';
import { createTurnBudget, type TurnBudget } from '../http/turn-budget';
import { asLogger, processLog, type Log } from '../log/logger';
import { runInRequest } from '../log/request-context';
import { needsNothing, openSession, withSession, type Route } from '../session/route-guard';
import type { Sessions } from '../session/sessions';
import type { TeamDoor } from '../session/team-door';
import { STORE_UNAVAILABLE_CODE, StoreUnavailableError } from '../store/db';
import { sendText } from '../http/send-text';
import { PLAIN_COOKIE_NAME, SECURE_COOKIE_NAME } from '../session/session-cookie';

/** A room of the server: its declarations, registered in Fastify as a plugin of its own (server/routes/router.ts). */
export interface Room {
  name: string;
  routes: readonly Route[];
}

/** The route Fastify found for a request: a declaration, or a refusal (declared for other methods only: the 405). */
export type Match =
  | { kind: 'route'; route: Route; template: string; params: Readonly<Record<string, string | undefined>> }
  /** Declared for other methods only: `route` is one of them (its config: where the 405 is answered). */
  | { kind: 'method-not-allowed'; route: Route; template: string; allowed: readonly Method[] };

export interface RoutesOptions {
  /** Every room's declarations (built from each room's own parts in server/process/compose.ts), the pages' catch-all among them. */
  rooms: readonly Room[];
  sessions: Sessions;
  /** A request of a method a page's path does not take goes by the asset middleware first (Vite's, in dev), as before the table. */
  assets?: AssetHandler;
  /** Dev serves no CSP: Vite's HMR needs inline scripts. */
  withCsp: boolean;
  /** Hashes of the <style> the template carries inline, for the CSP's style-src. */
  styleHashes?: readonly string[] | undefined;
  /** Where each request's line and an internal error go: a Logger (server/log/logger.ts), or a Log that takes only the events. */
  log?: Log;
  /** Each answered request, for the metrics. */
  answered?: ((answer: AnsweredRequest) => void) | undefined;
  /** Whether a Host header names a host the console is served on (server/http/host-check.ts); every host without it. */
  hostAllowed?: ((host: string | undefined) => boolean) | undefined;
  /** PUBLIC_URL: https there turns HSTS on. */
  publicUrl?: URL | undefined;
  /** How many requests start per turn of the event loop (server/http/turn-budget.ts's TURN_BUDGET_MS otherwise). */
  turns?: TurnBudget | undefined;
  /** Team sign-in (docs/team.md): each route's role enforced for the session's person, changes and refusals recorded. */
  team?: TeamDoor | undefined;
  /**
   * Settles once the sign-outs kept in the store are known (the embedded store opens in the background at start:
   * server/store/store.ts); a route that needs a session waits for it (bounded), one that needs nothing never does.
   */
  sessionsReady?: (() => Promise<void> | undefined) | undefined;
}

/** Whether the request carries a session cookie (either name: server/session/session-cookie.ts). */
function carriesSessionCookie(req: IncomingMessage): boolean {
  const cookie = req.headers.cookie;
  return cookie !== undefined && (cookie.includes(`${SECURE_COOKIE_NAME}=`) || cookie.includes(`${PLAIN_COOKIE_NAME}=`));
}

/** An error's own words for the log: its message, else its name (an empty "Internal error:" helps no one). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || error.name || 'an error without a message';
}

/** Answers a request whose route Fastify found. */
export type RouteDispatch = (req: IncomingMessage, res: ServerResponse, match: Match) => void;

/** Everything but the matching: headers, the request's id and line, the turn budget, the hooks, the handler. */
export function createRouteDispatch(options: RoutesOptions): RouteDispatch {
  const { sessions } = options;
  const log = asLogger(options.log ?? processLog);
  const fail = (res: ServerResponse, error: unknown) => {
    res.setHeader('Cache-Control', 'no-store');
    // A body past its limit (the console's own 16 KiB, the API's 1 MiB) is the client's doing: 413, nothing to log.
    if (error instanceof BodyTooLargeError) {
      sendError(res, 413, error.message, 'body_too_large');
      return;
    }
    // The console's store, not the API: the page says which part failed (the store logs its own outage once).
    if (error instanceof StoreUnavailableError) {
      sendError(res, 503, error.message, STORE_UNAVAILABLE_CODE);
      return;
    }
    log(`Internal error: ${describeError(error)}`, { event: 'http.internal_error', level: 'error' });
    sendError(res, 500, 'Internal error while answering the request.');
  };
  const headers = Object.entries(securityHeaders({ withCsp: options.withCsp, ...(options.styleHashes ? { styleHashes: options.styleHashes } : {}) }));
  // A few requests started per turn of the event loop (server/http/turn-budget.ts); checks are never held.
  const turns = options.turns ?? createTurnBudget();

  const methodNotAllowed = async (req: IncomingMessage, res: ServerResponse, allowed: readonly string[]) => {
    await discardBody(req);
    res.setHeader('Cache-Control', 'no-store');
    sendMethodNotAllowed(res, req.method ?? '', allowed);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, match: Match): Promise<void> => {
    const { config } = match.route;
    if (!config.anyHost && options.hostAllowed && !options.hostAllowed(req.headers.host)) {
      await sendText(req, res, 421, MISDIRECTED);
      return;
    }
    const refused = config.unheld ? null : crossSiteWriteProblem(req);
    if (refused) {
      await discardBody(req);
      res.setHeader('Cache-Control', 'no-store');
      sendError(res, 403, refused, 'cross_site_write');
      return;
    }
    if (match.kind === 'method-not-allowed') {
      const { assets } = options;
      if (config.page && assets) assets(req, res, () => void methodNotAllowed(req, res, match.allowed).catch((error: unknown) => fail(res, error)));
      else await methodNotAllowed(req, res, match.allowed);
      return;
    }
    const ctx: RouteContext = { req, res, params: match.params, route: match.template };
    const { route } = match;
    // A session is read only once the sign-outs kept in the store are known: a route that needs one, and a page
    // whose request carries the cookie (it is rendered as signed in), wait for them; nothing else does.
    if (options.sessionsReady && (!needsNothing(route) || (config.page && carriesSessionCookie(req)))) await options.sessionsReady();
    if (needsNothing(route)) {
      await route.handler(ctx);
      return;
    }
    // What a route that needs a session answers from, it holds already: never cached.
    res.setHeader('Cache-Control', 'no-store');
    const session = await openSession(sessions, req, res, MAX_FORM_BODY_BYTES);
    if (!session) return;
    const { team } = options;
    if (team && !(await team.allow(req, res, session, config))) return;
    if (!team) {
      await route.handler(withSession(sessions, ctx, session));
      return;
    }
    // A change is in the audit trail before its answer goes out (docs/team.md, "The audit trail"): the answer's end
    // waits for the row, which has the status the handler answered with; a row that cannot be written is logged and
    // the answer goes out all the same (the change was made).
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    let recorded: Promise<void> | undefined;
    res.end = ((...args: unknown[]) => {
      recorded ??= team
        .changed(req, res, session, config)
        .catch((error: unknown) => log(`Audit trail: a change could not be recorded (${describeError(error)})`, { event: 'audit.unrecorded', level: 'error' }))
        .then(() => void end(...args));
      return res;
    }) as ServerResponse['end'];
    await route.handler(withSession(sessions, ctx, session));
    await recorded;
  };

  return (req, res, match) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    if (wantsStrictTransport(req, options.publicUrl)) res.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    // The request's id and route from here on, in everything it awaits (server/log/request-context.ts).
    const context = beginRequest(req, res, { log, answered: options.answered, route: match.template, quiet: match.route.config.quiet });
    const start = () => {
      // Gone while it waited for its turn: nobody to answer.
      if (res.destroyed) return;
      handle(req, res, match).catch((error: unknown) => fail(res, error));
    };
    // Checks are never held: a balancer's, and Prometheus's, which matter most when the process is busy.
    if (match.route.config.unheld) runInRequest(context, start);
    else turns.admit(() => runInRequest(context, start));
  };
}
