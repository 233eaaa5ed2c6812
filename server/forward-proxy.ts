// Forwards the console's same-origin `/api/v2/*` calls to the real control API (API_URL). It only ever
// targets that base URL: the request contributes a path below it, a query and a body, never a host.
import type { IncomingMessage } from 'node:http';
import { API_PREFIX, answerSafely, isApiPath, readBody, sendJsonError, type NodeHandler } from './node-adapter';

export interface ForwardProxyOptions {
  /** Base URL of the API including its version segment, e.g. `https://console.neon.tech/api/v2`. */
  apiUrl: string;
  /** Upstream deadline for the whole exchange (headers and body); 504 when it passes. */
  timeoutMs?: number;
}

const FORWARDED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'x-neon-ret-request-id', 'retry-after'];

/** Parses API_URL once at start-up; a base that could smuggle credentials or a query is refused. */
export function parseApiBase(apiUrl: string): URL {
  let base: URL;
  try {
    base = new URL(apiUrl);
  } catch {
    throw new Error(`API_URL is not a valid URL: ${apiUrl}`);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new Error('API_URL must be an http(s) URL.');
  if (base.username || base.password) throw new Error('API_URL must not contain credentials.');
  if (base.search || base.hash) throw new Error('API_URL must not contain a query or fragment.');
  return base;
}

/**
 * Whether a raw request path (what follows `/api/v2`, before the query) stays below the base once
 * the upstream, or any URL parser on the way, decodes and normalises it.
 */
export function isSafeApiPath(path: string): boolean {
  if (path === '') return true;
  if (!path.startsWith('/')) return false;
  // Whitespace/control characters, backslashes, empty segments (`//`, also how `http://` would look),
  // and percent-encoded slash, backslash, percent or NUL (double decoding) are never part of an API path.
  if (/[\s\\]|\/\/|%(?:2f|5c|25|00)/i.test(path)) return false;
  for (const segment of path.slice(1).split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return false;
    }
    if (decoded === '.' || decoded === '..' || /^[a-z][a-z\d+.-]*:/i.test(decoded)) return false;
  }
  return true;
}

function buildTarget(base: URL, rawUrl: string): URL | undefined {
  // The mount normally filters this; checked again here because an absolute-form target
  // (`GET http://evil.example/api/v2/… HTTP/1.1`) or `//host/…` would otherwise be sliced into a path.
  if (!isApiPath(rawUrl)) return undefined;
  const rest = rawUrl.slice(API_PREFIX.length);
  const queryStart = rest.indexOf('?');
  const path = queryStart === -1 ? rest : rest.slice(0, queryStart);
  const query = queryStart === -1 ? '' : rest.slice(queryStart);
  if (!isSafeApiPath(path)) return undefined;
  const basePath = base.pathname.replace(/\/+$/, '');
  const target = new URL(`${base.origin}${basePath}${path}${query}`);
  // Belt and braces: whatever the checks above missed, the parsed target must still sit under the base.
  const underBase = target.pathname === basePath || target.pathname.startsWith(`${basePath}/`);
  return target.origin === base.origin && underBase ? target : undefined;
}

function forwardedHeaders(req: IncomingMessage, hasBody: boolean): Headers {
  const headers = new Headers();
  const { authorization, accept } = req.headers;
  if (authorization !== undefined) headers.set('authorization', authorization);
  if (accept !== undefined) headers.set('accept', accept);
  // Part of the body, not of the caller's identity: without it a JSON body is read as text.
  const contentType = req.headers['content-type'];
  if (hasBody && contentType !== undefined) headers.set('content-type', contentType);
  return headers;
}

function failureCode(error: unknown): string {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code: unknown = cause && typeof cause === 'object' && 'code' in cause ? cause.code : undefined;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? ` (${code})` : '';
}

export function createForwardProxy({ apiUrl, timeoutMs = 30_000 }: ForwardProxyOptions): NodeHandler {
  const base = parseApiBase(apiUrl);
  return (req, res) =>
    answerSafely(res, async () => {
      const method = req.method ?? 'GET';
      if (!FORWARDED_METHODS.has(method)) {
        sendJsonError(res, 405, `Method ${method} is not forwarded.`);
        return;
      }
      const target = buildTarget(base, req.url ?? '');
      if (!target) {
        sendJsonError(res, 400, 'Invalid API path.');
        return;
      }
      const body = await readBody(req);
      const clientGone = new AbortController();
      res.once('close', () => clientGone.abort());

      let upstream: Response;
      let payload: Buffer;
      try {
        upstream = await fetch(target, {
          method,
          headers: forwardedHeaders(req, body !== undefined),
          body: body ? new Uint8Array(body) : null,
          redirect: 'manual',
          signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), clientGone.signal]),
        });
        payload = Buffer.from(await upstream.arrayBuffer());
      } catch (error) {
        // Messages name the upstream host at most: the caller's Authorization header never appears.
        if (error instanceof DOMException && error.name === 'TimeoutError') {
          sendJsonError(res, 504, `The API at ${base.host} did not answer within ${Math.round(timeoutMs / 1000)} s.`);
        } else {
          sendJsonError(res, 502, `Could not reach the API at ${base.host}${failureCode(error)}.`);
        }
        return;
      }

      if (upstream.type === 'opaqueredirect' || (upstream.status >= 300 && upstream.status < 400)) {
        sendJsonError(res, 502, `The API at ${base.host} answered with a redirect (${upstream.status}), which is not followed.`);
        return;
      }
      res.statusCode = upstream.status;
      for (const name of FORWARDED_RESPONSE_HEADERS) {
        const value = upstream.headers.get(name);
        if (value !== null) res.setHeader(name, value);
      }
      res.end(method === 'HEAD' ? undefined : payload);
    });
}
