// The in-process simulator's requests, each handed to MSW with only the routes it could be for. MSW's
// getResponse tries every handler in order, and each try compiles that route's pattern and reads the
// request's cookies again: with the simulator's thirty-odd routes, a quarter of the server's CPU went to
// trying routes that could not match (profile of the simulator under load, 2026-11-27). Here each route's
// method and path become a test worked out once, and only the handlers that pass it are tried, still by
// MSW and in their order, so what answers a request is what answered it before.
import { HttpHandler, type RequestHandler } from 'msw';

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
