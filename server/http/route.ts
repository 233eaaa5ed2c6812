// A route of the console's server, declared once in its room (docs/architecture.md, "How a request finds its route"):
// its method(s), its path template (find-my-way's syntax: `:id` one segment, `*` a whole subtree), what it needs,
// and its handler. Shaped like Fastify's route options (`method`, `url`, `config`, `handler`): server/routes/router.ts
// registers each one in Fastify as it is, in its room's plugin; the log's and the metrics' route label is the
// template; a 405's Allow is every method the path is declared with (server/routes/refusals.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Role } from '../../src/model/roles';

/** The methods a route may be declared with: those Fastify 5 routes by default (but QUERY, which the API takes nowhere), so every declaration mounts there too. */
export const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;

export type Method = (typeof ALL_METHODS)[number];

export const READ_METHODS: readonly Method[] = ['GET', 'HEAD'];

/** Who may call a route: anyone, or a request whose cookie opens a session (the one 401 otherwise). */
export type Needs = 'none' | 'session';

/** The role a route asks of the signed-in person of team sign-in (src/model/roles.ts, docs/team.md). */
export type { Role };

export interface RouteConfig {
  needs: Needs;
  role?: Role;
  /** Team sign-in: what the audit trail calls a change through it ("Delete webhook"). */
  action?: string;
  /** Team sign-in: a POST that changes nothing a person did (a page saying what it shows): never a row of the audit trail. */
  unaudited?: boolean;
  /** Team sign-in: what the refusal says the role can do ("delete webhooks": "Admins can delete webhooks"). */
  may?: string;
  /** A check (a balancer's, Prometheus's): never waits for the turn budget, no cross-site rule (it changes nothing), its log line is debug. */
  unheld?: boolean;
  /** Answered before the Host check: a balancer may name the instance by its address. */
  anyHost?: boolean;
  /** A page or a file: the asset middleware (Vite's in dev) sees a request of another method first, as it sees every page. */
  page?: boolean;
  /** Its log line is debug (a dev module, a probe): hundreds a minute say nothing. */
  quiet?: boolean;
}

/** What every handler is given; a route that needs a session gets it too (server/session/route-guard.ts). */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The template's parameters as they came in the address (still percent-encoded: decodeSegment reads one). */
  params: Readonly<Record<string, string | undefined>>;
  /** The template the request matched (its log and metrics label). */
  route: string;
}

export interface RouteOptions<Context extends RouteContext = RouteContext, N extends Needs = Needs> {
  method: Method | readonly Method[];
  url: string;
  config: RouteConfig & { needs: N };
  handler: (ctx: Context) => Promise<void>;
}

export function methodsOf(route: Pick<RouteOptions, 'method'>): readonly Method[] {
  return typeof route.method === 'string' ? [route.method] : route.method;
}

/** A handler that needs nothing but the request. */
export type Handler = (ctx: RouteContext) => Promise<void>;
