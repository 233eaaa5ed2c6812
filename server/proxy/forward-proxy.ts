// Forwards the console's same-origin `/api/v2/*` calls to the real control API (API_URL). It only ever
// targets that base URL: the request contributes a path below it, a query and a body, never a host.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonErrorResponse, methodNotAllowedResponse } from '../http/answers';
import { MAX_API_BODY_BYTES, readBody } from '../http/body';
import { AnswerError, answerSafely, sendChunks, sendFetchResponse, type ApiFetch, type NodeHandler } from '../http/node-bridge';
import { API_PREFIX, isApiPath } from '../http/paths';
import type { Log } from '../log/logger';
import { createOutage, type Outage } from '../log/outage';
import { currentRequestId, isRequestId, X_REQUEST_ID } from '../log/request-context';
import { acceptedEncodings, clientGoneFromSignal, exchange, type ClientGone, type Exchange, type ExchangeTarget } from './upstream-exchange';

/** The console's answer to an API path that could leave the base or does not decode (either backend). */
export const INVALID_API_PATH = 'Invalid API path.';

/** `code` of the errors the console's server writes itself when the API cannot be reached. */
export const UPSTREAM_ERROR_CODE = 'CONSOLE_API_UNREACHABLE';

export interface ForwardProxyOptions {
  /** Base URL of the API including its version segment, e.g. `https://console.neon.tech/api/v2`. */
  apiUrl: string;
  /** Upstream deadline for the whole exchange (headers and body); 504 when it passes before the answer goes out. */
  timeoutMs?: number;
  /** The largest answer passed on (as received, or as decoded for a client that cannot take the API's encoding). */
  maxAnswerBytes?: number;
}

/** Far above any answer of the API (1,000 operations are about 0.5 MB), far below what would strain the server. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

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
    let decoded = segment;
    try {
      if (segment.includes('%')) decoded = decodeURIComponent(segment);
    } catch {
      return false;
    }
    if (decoded === '.' || decoded === '..' || /^[a-z][a-z\d+.-]*:/i.test(decoded)) return false;
  }
  return true;
}

/** What of API_URL every target shares, worked out once: node:http wants the host without an IPv6 address's brackets. */
interface ApiBase {
  url: URL;
  /** The base's path without its trailing slashes. */
  path: string;
  upstream: Omit<ExchangeTarget, 'path'>;
}

function apiBaseOf(url: URL): ApiBase {
  return {
    url,
    path: url.pathname.replace(/\/+$/, ''),
    upstream: { protocol: url.protocol === 'https:' ? 'https:' : 'http:', hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port },
  };
}

function buildTarget({ url: base, path: basePath, upstream }: ApiBase, rawUrl: string): ExchangeTarget | undefined {
  // The mount normally filters this; checked again here because an absolute-form target
  // (`GET http://evil.example/api/v2/… HTTP/1.1`) or `//host/…` would otherwise be sliced into a path.
  if (!isApiPath(rawUrl)) return undefined;
  const rest = rawUrl.slice(API_PREFIX.length);
  const queryStart = rest.indexOf('?');
  const path = queryStart === -1 ? rest : rest.slice(0, queryStart);
  const query = queryStart === -1 ? '' : rest.slice(queryStart);
  if (!isSafeApiPath(path)) return undefined;
  const target = new URL(`${base.origin}${basePath}${path}${query}`);
  // Belt and braces: whatever the checks above missed, the parsed target must still sit under the base.
  const underBase = target.pathname === basePath || target.pathname.startsWith(`${basePath}/`);
  if (target.origin !== base.origin || !underBase) return undefined;
  return { ...upstream, path: `${target.pathname}${target.search}` };
}

/** A request header by its lower-case name, null when absent (Fetch's Headers, or Node's request headers). */
type HeaderOf = (name: string) => string | null;

function forwardedHeaders(header: HeaderOf, hasBody: boolean, accepted: ReadonlySet<string>): Record<string, string> {
  // The console's own name, never the caller's (fetch used to send `node`; some front doors refuse none).
  const headers: Record<string, string> = { 'user-agent': 'ops-console' };
  const authorization = header('authorization');
  const accept = header('accept');
  if (authorization !== null) headers.authorization = authorization;
  if (accept !== null) headers.accept = accept;
  // Part of the body, not of the caller's identity: without it a JSON body is read as text.
  const contentType = header('content-type');
  if (hasBody && contentType !== null) headers['content-type'] = contentType;
  // The request this call is made for (server/log/request-context.ts), so the API's logs and the console's meet.
  const requestId = currentRequestId() ?? header(X_REQUEST_ID);
  if (isRequestId(requestId)) headers[X_REQUEST_ID] = requestId;
  // What the caller takes compressed (and this server could decode): the answer then passes through as it is.
  headers['accept-encoding'] = accepted.size > 0 ? [...accepted].join(', ') : 'identity';
  return headers;
}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
};

function errorCode(error: unknown): unknown {
  return error && typeof error === 'object' && 'code' in error ? error.code : undefined;
}

/** Why a request failed, in words, from its system error code (node:http's own, or the `cause` fetch keeps); never a header value. */
export function failureCause(error: unknown): string {
  const code = errorCode(error) ?? errorCode(error instanceof Error ? error.cause : undefined);
  if (typeof code !== 'string' || !/^[A-Z_]+$/.test(code)) return 'no answer';
  return CAUSES[code] ? `${CAUSES[code]} (${code})` : code;
}

/** Where a failure to reach the API is reported on the server's side; never given a key. */
export type UpstreamLog = Log;

/** The API's outage: every failure to get an answer from it is one (logged once), any answer ends it. */
export function apiOutage(log: Log, apiUrl: string): Outage {
  const host = parseApiBase(apiUrl).host;
  return createOutage(log, {
    event: 'api.unreachable',
    fields: { api: host },
    over: `The API at ${host} answers again`,
    failed: ['failed request', 'failed requests'],
  });
}

export interface ForwardFetchOptions extends ForwardProxyOptions {
  log?: UpstreamLog;
  /** The API's outage, shared by every way this API is called (its own otherwise). */
  outage?: Outage;
  /** Each call sent to the API, with the status it answered (0: none): metrics count them. */
  sent?: (status: number) => void;
}

/** One forwarded call, however it came in: its method, raw target, headers, body and the client's going away. */
interface Forwarding {
  method: string;
  target: string;
  header: HeaderOf;
  body: Uint8Array | undefined;
  clientGone: ClientGone | undefined;
}

/** What the API said: the exchange to pass on, or the console's own answer (its error, or nothing at all). */
type Forwarded = { kind: 'own'; response: Response } | { kind: 'answer'; status: number; headers: [string, string][]; upstream: Exchange; empty: boolean };

function createForwarder({
  apiUrl,
  timeoutMs = 30_000,
  maxAnswerBytes = MAX_ANSWER_BYTES,
  log = () => undefined,
  sent,
  ...given
}: ForwardFetchOptions): (call: Forwarding) => Promise<Forwarded> {
  const api = apiBaseOf(parseApiBase(apiUrl));
  const base = api.url;
  // No answer (a refused connection, the deadline, a redirect it will not follow) repeats on every call while it lasts: said once.
  const unreachable = given.outage ?? apiOutage(log, apiUrl);
  const own = (response: Response): Forwarded => ({ kind: 'own', response });
  return async ({ method, target: rawTarget, header, body, clientGone }) => {
    if (!FORWARDED_METHODS.has(method)) return own(methodNotAllowedResponse(method, [...FORWARDED_METHODS]));
    const target = buildTarget(api, rawTarget);
    if (!target) return own(jsonErrorResponse(400, INVALID_API_PATH));
    // Logged by method and path only: the query may carry search text, and no header is ever logged.
    const what = `${method} ${target.path.split('?')[0] ?? ''}`;
    const problem = (kind: 'deadline' | 'too-large' | 'broken', detail?: string) => {
      const [status, message] =
        kind === 'deadline'
          ? [504, `The API at ${base.host} did not answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}.`]
          : kind === 'too-large'
            ? [502, `The API at ${base.host} sent an answer larger than ${Math.round(maxAnswerBytes / (1024 * 1024))} MiB, which the console does not pass on.`]
            : [502, `The API at ${base.host} broke off its answer${detail ? `: ${detail}` : ''}.`];
      if (kind === 'deadline') unreachable.failed(`${message} (${what})`);
      else log(`${message} (${what})`, { event: 'api.answer_broken', level: 'warn', api: base.host });
      return new AnswerError(status, message, UPSTREAM_ERROR_CODE);
    };
    const accepted = acceptedEncodings(header('accept-encoding'));
    let upstream: Exchange;
    try {
      upstream = await exchange({
        target,
        method,
        headers: forwardedHeaders(header, body !== undefined, accepted),
        body,
        clientGone,
        deadlineMs: timeoutMs,
        maxBytes: maxAnswerBytes,
        accepted,
        problem,
      });
    } catch (error) {
      if (clientGone?.aborted) return own(Response.error());
      sent?.(0);
      if (error instanceof AnswerError) return own(jsonErrorResponse(error.status, error.message, error.code));
      const message = `Could not reach the API at ${base.host}: ${failureCause(error)}.`;
      unreachable.failed(`${message} (${what})`);
      return own(jsonErrorResponse(502, message, UPSTREAM_ERROR_CODE));
    }

    const status = upstream.response.statusCode ?? 502;
    sent?.(status);
    if (status >= 300 && status < 400) {
      upstream.discard();
      const message = `The API at ${base.host} answered with a redirect (${status}), which is not followed.`;
      unreachable.failed(`${message} (${what})`);
      return own(jsonErrorResponse(502, message, UPSTREAM_ERROR_CODE));
    }
    unreachable.recovered();
    const headers: [string, string][] = [];
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = upstream.response.headers[name];
      if (typeof value === 'string') headers.push([name, value]);
    }
    if (upstream.encoding) headers.push(['content-encoding', upstream.encoding], ['vary', 'Accept-Encoding']);
    const empty = method === 'HEAD' || status === 204 || status === 304 || status < 200;
    if (empty) upstream.discard();
    return { kind: 'answer', status: status < 200 ? 502 : status, headers, upstream, empty };
  };
}

/** The proxy as an ApiFetch: the request contributes a path below API_URL, a query and a body, never a host. */
export function createForwardFetch(options: ForwardFetchOptions): ApiFetch {
  const forward = createForwarder(options);
  return async ({ method, target, headers, body, signal }) => {
    const forwarded = await forward({
      method,
      target,
      header: (name) => headers.get(name),
      body,
      clientGone: signal ? clientGoneFromSignal(signal) : undefined,
    });
    if (forwarded.kind === 'own') return forwarded.response;
    const { status, upstream, empty } = forwarded;
    return new Response(empty ? null : upstream.body(), { status, headers: forwarded.headers });
  };
}

/** How a Node request is forwarded: the key to send in place of the caller's own, and a look at the status before it goes out. */
export interface ForwardServeOptions {
  authorization?: string | undefined;
  /** Called with the API's status before the answer's head is written (the session's 401 sets its cookie here). */
  onStatus?: (status: number) => void;
}

/** Answers a Node request by forwarding it, the API's answer written straight to the Node response (no Fetch objects between). */
export type ForwardServe = (req: IncomingMessage, res: ServerResponse, options?: ForwardServeOptions) => Promise<void>;

/** The same proxy for `/api/v2` on the console's origin: the hot path of every page's polls, so Node streams end to end. */
export function createForwardServe(options: ForwardFetchOptions): ForwardServe {
  const forward = createForwarder(options);
  return async (req, res, { authorization, onStatus } = {}) => {
    const body = await readBody(req, MAX_API_BODY_BYTES);
    const { clientGone, release } = clientGoneFromResponse(res);
    const header = (name: string): string | null => {
      if (name === 'authorization' && authorization !== undefined) return authorization;
      const value = req.headers[name];
      return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : null;
    };
    try {
      const forwarded = await forward({ method: req.method ?? 'GET', target: req.url ?? '/', header, body, clientGone });
      if (forwarded.kind === 'own') {
        onStatus?.(forwarded.response.status);
        await sendFetchResponse(res, forwarded.response, req.method);
        return;
      }
      const { status, headers, upstream, empty } = forwarded;
      onStatus?.(status);
      const head = () => {
        res.statusCode = status;
        for (const [name, value] of headers) res.setHeader(name, value);
      };
      if (empty) {
        head();
        res.end();
        return;
      }
      await sendChunks(res, head, upstream.chunks(), upstream.cancel);
    } finally {
      release();
    }
  };
}

/** A Node response's early close as a ClientGone (it closes before it is finished only when the client went away); `release` stops listening. */
function clientGoneFromResponse(res: ServerResponse): { clientGone: ClientGone; release: () => void } {
  let gone = false;
  let onGone: (() => void) | undefined;
  const onClose = () => {
    gone = true;
    onGone?.();
  };
  res.once('close', onClose);
  const clientGone: ClientGone = {
    get aborted() {
      return gone;
    },
    watch: (listener) => {
      onGone = listener;
      return () => (onGone = undefined);
    },
  };
  return { clientGone, release: () => void res.off('close', onClose) };
}

export function createForwardProxy(options: ForwardFetchOptions): NodeHandler {
  const serve = createForwardServe(options);
  return (req, res) => answerSafely(res, () => serve(req, res));
}
