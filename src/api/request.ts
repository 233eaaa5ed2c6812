import type * as z from 'zod/mini';
import { ApiErrorBodySchema } from './schemas';
import { ApiError, describeStatus } from './api-error';
import { noteRequestSent } from './request-log';
import { parseRetryAfter } from '../lib/retry-after';

export const API_BASE = '/api/v2';
/** The console's own server (its /session and /archive routes): no prefix, same origin, same errors. */
export const CONSOLE_BASE = '';

/** Longest the console waits for an answer (headers and body) before calling the API unreachable. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * How a request reaches the API: in the browser, a same-origin fetch (the console's server adds the
 * session's key); on the server (rendering), a call into its own API backend with the request's key.
 * Given per call, so nothing about one person's session lives in this module.
 */
export type Transport = (path: string, init: RequestInit) => Promise<Response>;

/** The page's own origin: relative URLs, the session cookie sent, never an Authorization header. */
export const sameOriginTransport: Transport = (path, init) => fetch(path, { ...init, credentials: 'same-origin' });

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  transport?: Transport;
  /** Whose path this is: the platform's API (default) or the console's own server. */
  base?: typeof API_BASE | typeof CONSOLE_BASE;
  /** How long to wait for the answer (REQUEST_TIMEOUT_MS unless the request is known to take longer). */
  timeoutMs?: number;
}

/** What a fetcher passes on to request() for its caller: the abort signal, and the transport to use. */
export type Call = Pick<RequestOptions, 'signal' | 'transport'>;

/** `/api/v2/...` (or the console's own path) with the query, relative to whatever origin the transport talks to. */
function buildPath(base: string, path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(name, String(value));
  }
  const search = params.toString();
  return `${base}${path}${search ? `?${search}` : ''}`;
}

function firstIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const where = issue.path.length ? issue.path.join('.') : 'body';
  return `${where}: ${issue.message}`;
}

/**
 * The only way to the API: sends through the transport (never with a key: the server holds it), turns
 * any non-2xx into an ApiError, and parses the body with `schema` so nothing downstream trusts an
 * unchecked shape.
 */
export async function request<S extends z.ZodMiniType>(path: string, schema: S, options: RequestOptions = {}): Promise<z.output<S>> {
  const transport = options.transport ?? sameOriginTransport;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';

  const method = options.method ?? 'GET';
  const base = options.base ?? API_BASE;
  // A request that hangs would stall its query (and every poll behind it): give up after a while.
  const attempt = new AbortController();
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const timer = setTimeout(() => attempt.abort(), timeoutMs);
  const cancel = () => attempt.abort();
  options.signal?.addEventListener('abort', cancel, { once: true });
  const timedOut = () => attempt.signal.aborted && !options.signal?.aborted;
  const timeoutError = (requestId?: string) =>
    new ApiError({
      kind: 'network',
      status: 0,
      method,
      requestId,
      message: `${base === API_BASE ? 'The API' : 'The console’s server'} did not answer within ${timeoutMs / 1_000} s.`,
    });

  let response: Response;
  let requestId: string | undefined;
  let text: string;
  try {
    try {
      // Only this tab's own API requests count toward its pace; the server's (rendering, the archive) are not the API's.
      if (transport === sameOriginTransport && base === API_BASE) noteRequestSent();
      response = await transport(buildPath(base, path, options.query), {
        method,
        headers,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: attempt.signal,
        cache: 'no-store',
      });
    } catch (cause) {
      if (timedOut()) throw timeoutError();
      if (options.signal?.aborted) throw cause;
      throw new ApiError({ kind: 'network', status: 0, method, message: 'Could not reach the API. Check the connection.' });
    }
    requestId = response.headers.get('x-neon-ret-request-id') ?? undefined;
    try {
      text = await response.text();
    } catch (cause) {
      if (timedOut()) throw timeoutError(requestId);
      // The connection broke after the headers: as good as no answer.
      if (options.signal?.aborted) throw cause;
      throw new ApiError({
        kind: 'network',
        status: 0,
        method,
        requestId,
        message: 'Could not reach the API: the connection closed before the answer was complete.',
      });
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
  }

  if (!response.ok) {
    let body: z.output<typeof ApiErrorBodySchema> | undefined;
    try {
      const parsed = ApiErrorBodySchema.safeParse(JSON.parse(text));
      if (parsed.success) body = parsed.data;
    } catch {
      // A non-JSON error page (a proxy's HTML, say) still gets a readable message below.
    }
    throw new ApiError({
      kind: 'http',
      status: response.status,
      message: body?.message ? body.message : describeStatus(response.status),
      code: body?.code || undefined,
      requestId: requestId ?? body?.request_id,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
      method,
    });
  }

  let json: unknown = null;
  if (text !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      throw new ApiError({
        kind: 'malformed',
        status: response.status,
        method,
        message: 'The API sent a response the console could not read (not valid JSON).',
        requestId,
      });
    }
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError({
      kind: 'malformed',
      status: response.status,
      message: `The API sent a response the console could not read (${firstIssue(parsed.error)}).`,
      requestId,
      method,
    });
  }
  return parsed.data;
}
