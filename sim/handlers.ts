// The HTTP contract of the simulator: MSW handlers over a control plane. The same handlers serve
// component tests (msw/node), the dev server and `npm start`, so there is one fake, not three.
//
// Where the documents are silent we chose:
// - a project outside the key's scope answers 404 like a missing one; organization-level refusals answer 403;
// - an empty operations page echoes the request's cursor; only a project with no operations omits pagination;
// - /users/me/organizations with an organization or project-scoped key answers that key's one organization (OpenAPI text);
// - deleting the default branch or a branch with children answers 409; an unknown or deleted branch 204 (OpenAPI);
// - 423 counts every unfinished operation except check_availability, including a failed one awaiting its retry;
// - /users/me with an organization or project-scoped key answers 403 (such keys stand for no user);
// - /organizations/{id}/members answers its members (one page) to any member's personal key and to the
//   organization's own key, and 403 to anyone else;
// - /projects/shared lists projects shared with the key's user (none for keys not tied to a user);
// - a documented platform route the simulator does not simulate answers 501 once the key is checked;
//   a path the platform does not have answers 404.
import { randomUUID } from 'node:crypto';
import { delay, http, HttpResponse, type HttpHandler, type JsonBodyType, type PathParams } from 'msw';
import type { ControlPlane, Principal } from './control-plane';
import { malformedJsonText, schemaBreakingBody, withUnknownValues, withoutOperations, type FaultDecision, type FaultInjector } from './faults';
import { ApiFailure, notFound, notImplemented, tooManyRequests, unauthorized } from './http-errors';
import {
  branchCreateInput,
  branchListQuery,
  integerParam,
  limitQuery,
  objectBody,
  optionalQuery,
  optionalString,
  projectCreateInput,
  projectPageQuery,
  readJson,
  requiredString,
  stringParam,
} from './http-input';
import { platformRoute } from './platform-routes';
import { PLATFORM_RATE_LIMITS, createRateLimiter, type RateLimits } from './rate-limiter';
import type { WireErrorBody } from './wire';

export const REQUEST_ID_HEADER = 'x-neon-ret-request-id';

const BASE = '*/api/v2';

interface RouteContext {
  request: Request;
  url: URL;
  params: PathParams;
  principal: Principal;
}

type Reply = { status: 200 | 201; body: JsonBodyType } | { status: 204 };

type Method = 'get' | 'post' | 'delete';

const METHODS = { get: http.get, post: http.post, delete: http.delete } as const;

export interface HandlerOptions {
  /** Faults to inject (sim/faults.ts); none when absent. */
  faults?: FaultInjector;
  /** Per-key request limits; `false` turns limiting off. Default: the platform's 700/min and 40/s per route. */
  rateLimits?: RateLimits | false;
}

export function createHandlers(cp: ControlPlane, { faults, rateLimits }: HandlerOptions = {}): HttpHandler[] {
  const limiter = rateLimits === false ? null : createRateLimiter(rateLimits ?? PLATFORM_RATE_LIMITS);

  /** Counts the request against its key's limits; a refusal is a 429 with Retry-After. */
  function checkRateLimit(principal: Principal, routeName: string): void {
    const decision = limiter?.consume(principal.keyId, routeName, cp.clock.now());
    if (decision && !decision.allowed) throw tooManyRequests(decision.reason, decision.retryAfterSeconds);
  }

  /**
   * Every route authenticates, counts against the key's rate limit, and answers JSON with a request id.
   * Injected faults come first, as they would from a struggling platform or a proxy in front of it.
   */
  function route(method: Method, path: string, handle: (ctx: RouteContext) => Reply | Promise<Reply>): HttpHandler {
    const routeName = `${method.toUpperCase()} ${path}`;
    return METHODS[method](`${BASE}${path}`, async ({ request, params }) => {
      const requestId = randomUUID();
      const url = new URL(request.url);
      const injected = faults?.decide(request.method, url.pathname.replace(/^\/api\/v2/, '')) ?? { latencyMs: 0, fault: undefined };
      if (injected.latencyMs > 0) await delay(injected.latencyMs);
      const early = faultResponse(injected.fault, requestId);
      if (early) return early;
      try {
        const principal = authenticate(cp, request);
        checkRateLimit(principal, routeName);
        const reply = await handle({ request, url, params, principal });
        const headers = { [REQUEST_ID_HEADER]: requestId };
        if (reply.status === 204) return new HttpResponse(null, { status: 204, headers });
        return replyResponse(reply.body, reply.status, headers, injected.fault);
      } catch (error) {
        return errorResponse(error, requestId);
      }
    });
  }

  const ok = (body: JsonBodyType): Reply => ({ status: 200, body });

  return [
    route('get', '/auth', ({ principal }) => ok(cp.whoAmI(principal))),
    route('get', '/users/me', ({ principal }) => ok(cp.currentUser(principal))),
    route('get', '/users/me/organizations', ({ principal }) => ok(cp.listOrganizations(principal))),
    route('get', '/organizations/:orgId/members', ({ principal, params }) => ok(cp.listMembers(principal, stringParam(params, 'orgId')))),

    route('get', '/api_keys', ({ principal }) => ok(cp.listPersonalApiKeys(principal))),
    route('post', '/api_keys', async ({ principal, request }) => {
      const body = objectBody(await readJson(request), 'request body');
      return ok(cp.createPersonalApiKey(principal, requiredString(body, 'key_name')));
    }),
    route('delete', '/api_keys/:keyId', ({ principal, params }) => ok(cp.revokePersonalApiKey(principal, integerParam(params, 'keyId', 'key_id')))),

    route('get', '/organizations/:orgId/api_keys', ({ principal, params }) => ok(cp.listOrgApiKeys(principal, stringParam(params, 'orgId')))),
    route('post', '/organizations/:orgId/api_keys', async ({ principal, params, request }) => {
      const body = objectBody(await readJson(request), 'request body');
      const projectId = optionalString(body, 'project_id');
      return ok(
        cp.createOrgApiKey(principal, stringParam(params, 'orgId'), {
          keyName: requiredString(body, 'key_name'),
          ...(projectId === undefined ? {} : { projectId }),
        }),
      );
    }),
    route('delete', '/organizations/:orgId/api_keys/:keyId', ({ principal, params }) =>
      ok(cp.revokeOrgApiKey(principal, stringParam(params, 'orgId'), integerParam(params, 'keyId', 'key_id'))),
    ),

    route('get', '/projects', ({ principal, url }) =>
      ok(cp.listProjects(principal, { ...projectPageQuery(url.searchParams), ...optionalQuery(url.searchParams, 'org_id', 'orgId') })),
    ),
    // Before /projects/:projectId, which would take "shared" for a project id.
    route('get', '/projects/shared', ({ principal, url }) => ok(cp.listSharedProjects(principal, projectPageQuery(url.searchParams)))),
    route('post', '/projects', async ({ principal, request }) => {
      const body = objectBody(await readJson(request), 'request body');
      return { status: 201, body: cp.createProject(principal, projectCreateInput(body)) };
    }),
    route('get', '/projects/:projectId', ({ principal, params }) => ok(cp.getProject(principal, stringParam(params, 'projectId')))),
    route('delete', '/projects/:projectId', ({ principal, params }) => ok(cp.deleteProject(principal, stringParam(params, 'projectId')))),

    route('get', '/projects/:projectId/operations', ({ principal, params, url }) =>
      ok(
        cp.listOperations(principal, stringParam(params, 'projectId'), {
          ...limitQuery(url.searchParams),
          ...optionalQuery(url.searchParams, 'cursor', 'cursor'),
        }),
      ),
    ),
    route('get', '/projects/:projectId/operations/:operationId', ({ principal, params }) =>
      ok(cp.getOperation(principal, stringParam(params, 'projectId'), stringParam(params, 'operationId'))),
    ),

    route('get', '/projects/:projectId/branches', ({ principal, params, url }) =>
      ok(cp.listBranches(principal, stringParam(params, 'projectId'), branchListQuery(url.searchParams))),
    ),
    route('post', '/projects/:projectId/branches', async ({ principal, params, request }) => {
      const raw = await readJson(request);
      const input = raw === undefined ? {} : branchCreateInput(objectBody(raw, 'request body'));
      return { status: 201, body: cp.createBranch(principal, stringParam(params, 'projectId'), input) };
    }),
    // Before `:branchId`, which would take "count" for a branch id.
    route('get', '/projects/:projectId/branches/count', ({ principal, params, url }) => {
      const search = url.searchParams.get('search') ?? undefined;
      const { branches } = cp.listBranches(principal, stringParam(params, 'projectId'), search === undefined ? {} : { search });
      return ok({ count: branches.length });
    }),
    route('get', '/projects/:projectId/branches/:branchId', ({ principal, params }) =>
      ok(cp.getBranch(principal, stringParam(params, 'projectId'), stringParam(params, 'branchId'))),
    ),
    route('get', '/projects/:projectId/branches/:branchId/databases', ({ principal, params }) =>
      ok(cp.listBranchDatabases(principal, stringParam(params, 'projectId'), stringParam(params, 'branchId'))),
    ),
    route('get', '/projects/:projectId/branches/:branchId/roles', ({ principal, params }) =>
      ok(cp.listBranchRoles(principal, stringParam(params, 'projectId'), stringParam(params, 'branchId'))),
    ),
    route('delete', '/projects/:projectId/branches/:branchId', ({ principal, params }) => {
      const result = cp.deleteBranch(principal, stringParam(params, 'projectId'), stringParam(params, 'branchId'));
      return result === null ? { status: 204 } : ok(result);
    }),

    route('get', '/projects/:projectId/endpoints', ({ principal, params }) => ok(cp.listEndpoints(principal, stringParam(params, 'projectId')))),
    route('post', '/projects/:projectId/endpoints/:endpointId/start', ({ principal, params }) =>
      ok(cp.startEndpoint(principal, stringParam(params, 'projectId'), stringParam(params, 'endpointId'))),
    ),
    route('post', '/projects/:projectId/endpoints/:endpointId/suspend', ({ principal, params }) =>
      ok(cp.suspendEndpoint(principal, stringParam(params, 'projectId'), stringParam(params, 'endpointId'))),
    ),
    route('post', '/projects/:projectId/endpoints/:endpointId/restart', ({ principal, params }) =>
      ok(cp.restartEndpoint(principal, stringParam(params, 'projectId'), stringParam(params, 'endpointId'))),
    ),

    // Last: a platform route we do not simulate (501, once the key is checked), or no route at all (404).
    http.all(`${BASE}/*`, ({ request }) => {
      const requestId = randomUUID();
      const { pathname } = new URL(request.url);
      const documented = platformRoute(request.method, pathname.replace(/^\/api\/v2/, ''));
      try {
        if (documented === undefined) throw notFound(`no route for ${request.method} ${pathname}`);
        authenticate(cp, request);
        throw notImplemented(`${documented} is part of the platform's API but not of this simulator`);
      } catch (error) {
        return errorResponse(error, requestId);
      }
    }),
  ];
}

// ---- authentication -------------------------------------------------------------------------------

function authenticate(cp: ControlPlane, request: Request): Principal {
  const header = request.headers.get('authorization');
  if (header === null) throw unauthorized('authorization required: send the header Authorization: Bearer <API key>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized('authorization header must have the form: Bearer <API key>');
  const principal = cp.authenticate(match[1]);
  // Unknown, revoked and unusable keys get the same answer: nothing about the key leaks.
  if (!principal) throw unauthorized('invalid API key');
  return principal;
}

// ---- responses ----------------------------------------------------------------------------------------

function errorResponse(error: unknown, requestId: string): Response {
  const failure = error instanceof ApiFailure ? error : new ApiFailure(500, `simulator error: ${error instanceof Error ? error.message : String(error)}`);
  const body: WireErrorBody = { code: failure.code, message: failure.message, request_id: requestId };
  const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
  if (failure.options.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.options.retryAfterSeconds);
  if (failure.status === 401) headers['www-authenticate'] = 'Bearer';
  return HttpResponse.json(body, { status: failure.status, headers });
}

// ---- injected faults ---------------------------------------------------------------------------------------

const FAULT_MESSAGES = {
  423: 'project already has running operations, scheduling of new ones is prohibited',
  500: 'internal server error',
  502: 'internal server error',
  503: 'service temporarily unavailable',
  504: 'internal server error',
} as const;

/** A fault that replaces the whole answer: a server error, a 423 or 429, or no answer at all. */
function faultResponse(fault: FaultDecision['fault'], requestId: string): Response | undefined {
  switch (fault?.type) {
    case 'status':
      return errorResponse(
        new ApiFailure(fault.status, FAULT_MESSAGES[fault.status], {
          ...(fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds }),
        }),
        requestId,
      );
    case 'rate-limit':
      return errorResponse(new ApiFailure(429, 'rate limit exceeded', { retryAfterSeconds: fault.retryAfterSeconds }), requestId);
    case 'drop-connection':
      // The Node adapter closes the socket on this; MSW in tests makes the fetch fail the same way.
      return HttpResponse.error();
    default:
      return undefined;
  }
}

/** A successful answer, unless a fault garbles its body. */
function replyResponse(body: JsonBodyType, status: number, headers: Record<string, string>, fault: FaultDecision['fault']): Response {
  switch (fault?.type) {
    case 'malformed-json':
      return new HttpResponse(malformedJsonText(body), { status, headers: { ...headers, 'content-type': 'application/json' } });
    case 'schema-break':
      return HttpResponse.json(schemaBreakingBody(body) as JsonBodyType, { status, headers });
    case 'unknown-values':
      return HttpResponse.json(withUnknownValues(body, fault) as JsonBodyType, { status, headers });
    case 'hide-operations':
      return HttpResponse.json(withoutOperations(body, fault) as JsonBodyType, { status, headers });
    default:
      return HttpResponse.json(body, { status, headers });
  }
}
