// The in-process simulator as an ApiFetch: each request handed to MSW with only the routes it could be for. MSW's
// getResponse tries every handler in order, and each try compiles that route's pattern and reads the
// request's cookies again: with the simulator's thirty-odd routes, a quarter of the server's CPU went to
// trying routes that could not match (profile of the simulator under load, 2026-11-27). Here each route's
// method and path become a test worked out once, and only the handlers that pass it are tried, still by
// MSW and in their order, so what answers a request is what answered it before.
import { getResponse, HttpHandler, type RequestHandler } from 'msw';
import { jsonErrorResponse } from '../http/answers';
import { nodeHandler, type ApiFetch, type NodeHandler } from '../http/node-bridge';
import { API_PREFIX } from '../http/paths';
import { INVALID_API_PATH, isSafeApiPath } from './forward-proxy';

/** True whenever `handler` could match a request with this method and path (never false when MSW would match). */
type Candidate = (method: string, pathname: string) => boolean;

const ALWAYS: Candidate = () => true;

/** A string route of MSW's: `*` (any run of characters) and `:name` (one segment); anything richer is not narrowed. */
const SIMPLE_PATH = /^[*]?\/[\w\-/:.*]*$/;

function pathTest(path: unknown): ((pathname: string) => boolean) | null {
  if (typeof path !== 'string' || !SIMPLE_PATH.test(path)) return null;
  const pattern = path
    .split(/(\*|:\w+)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.]/g, '\\.')))
    .join('');
  // MSW takes a trailing slash as the same path.
  const regexp = new RegExp(`^${pattern}/?$`, 'i');
  return (pathname) => regexp.test(pathname);
}

function methodTest(method: unknown): ((method: string) => boolean) | null {
  if (typeof method === 'string') {
    const wanted = method.toUpperCase();
    return (actual) => actual.toUpperCase() === wanted;
  }
  if (method instanceof RegExp) return (actual) => method.test(actual);
  return null;
}

function candidateTest(handler: RequestHandler): Candidate {
  if (!(handler instanceof HttpHandler)) return ALWAYS;
  const method = methodTest(handler.info.method);
  const path = pathTest(handler.info.path);
  if (!method || !path) return ALWAYS;
  return (actualMethod, pathname) => method(actualMethod) && path(pathname);
}

/** The handlers that could answer a request, in their order: `for(method, pathname)`. */
export function routeIndex(handlers: readonly RequestHandler[]): { for: (method: string, pathname: string) => RequestHandler[] } {
  const tests = handlers.map((handler) => ({ handler, could: candidateTest(handler) }));
  return { for: (method, pathname) => tests.filter(({ could }) => could(method, pathname)).map(({ handler }) => handler) };
}

/** What a raw target says below /api/v2, before its query. */
function apiPathOf(target: string): string {
  const path = target.split('?')[0] ?? '';
  return path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
}

/** The simulator's MSW handlers as an {@link ApiFetch}; a request no handler takes gets the platform's 404. */
export function createSimulatorFetch(handlers: RequestHandler[]): ApiFetch {
  const routes = routeIndex(handlers);
  return async ({ method, target, headers, body, signal }) => {
    // The same rule as in front of a real API (forward-proxy.ts): a path that is not one (`..`, a malformed
    // percent-encoding) is the client's 400, never a handler's crash.
    if (!isSafeApiPath(apiPathOf(target))) return jsonErrorResponse(400, INVALID_API_PATH);
    // The origin is irrelevant to the handlers (they match `*/api/v2/...`); never trust the Host header for it.
    const url = new URL(target, 'http://localhost');
    const request = new Request(url, { method, headers, body: body ?? null, ...(signal ? { signal } : {}) });
    const response = await getResponse(routes.for(request.method, url.pathname), request);
    return response ?? jsonErrorResponse(404, `no route for ${request.method} ${url.pathname}`);
  };
}

/** Serves MSW handlers on a Node server; a request no handler takes gets the platform's 404. */
export function createSimulatorHandler(handlers: RequestHandler[]): NodeHandler {
  return nodeHandler(createSimulatorFetch(handlers));
}
