// The server's own reads of the API (the session's key check, the archive's collector and its access
// check, the label of a kept key, notifications' access check): one way to send them, with the key in
// this in-process call's Authorization header only (never in a URL, a log line or an error's words),
// a deadline, Retry-After read as the page reads it, and the answer parsed with the API's own schemas.
import type { ZodMiniType } from 'zod/mini';
import { ApiErrorBodySchema } from '../../src/api/schemas';
import { parseRetryAfter } from '../../src/lib/retry-after';
import { errorAnswer, REQUEST_ID_HEADER, type Answer } from '../http/answers';
import type { ApiFetch } from '../http/node-bridge';
import { API_PREFIX } from '../http/paths';
import { withRequestId } from '../log/request-context';

/** How long a read may take before it counts as no answer. */
export const READ_TIMEOUT_MS = 30_000;

/** The one place an API key becomes a request header. */
export function authorizationOf(apiKey: string): string {
  return `Bearer ${apiKey}`;
}

export interface ApiRefusal {
  ok: false;
  /** 0: no answer at all (a dropped connection, the deadline). */
  status: number;
  /** In words, for a log line or the page: the status and the API's message when it gave one, never the key. */
  message: string;
  /** The API's own message, when its body had one. */
  detail: string | undefined;
  /** The API's own `code`, when its body had one. */
  code: string | undefined;
  requestId: string | undefined;
  retryAfterMs: number | undefined;
  /** The answer's body as it came (an error passed on to a session unchanged); empty without an answer. */
  body: string;
}

export type ApiAnswer<T> = { ok: true; status: number; data: T } | ApiRefusal;

export interface ReadOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
}

/** Reads `path` (below /api/v2, query included) with `apiKey`, parsed with `schema`. */
export type ApiReader = <T>(apiKey: string, path: string, schema: ZodMiniType<T>, options?: ReadOptions) => Promise<ApiAnswer<T>>;

export function refusal(status: number, message: string, extra: Partial<Omit<ApiRefusal, 'ok' | 'status' | 'message'>> = {}): ApiRefusal {
  return { ok: false, status, message, detail: undefined, code: undefined, requestId: undefined, retryAfterMs: undefined, body: '', ...extra };
}

/**
 * The API's own refusal, to pass on to a session exactly as it came (the archive's and the insights' "not
 * found": the same status, body and request id); without an answer, an error body saying so (502).
 */
export function refusalAnswer(answer: ApiRefusal): Answer {
  if (answer.status === 0 || answer.body === '')
    return errorAnswer(answer.status === 0 ? 502 : answer.status, answer.message, answer.code ?? '', answer.requestId);
  return {
    status: answer.status,
    headers: { 'Content-Type': 'application/json', ...(answer.requestId ? { [REQUEST_ID_HEADER]: answer.requestId } : {}) },
    body: answer.body,
  };
}

export function createApiReader(fetchApi: ApiFetch): ApiReader {
  return async <T>(apiKey: string, path: string, schema: ZodMiniType<T>, { signal, timeoutMs = READ_TIMEOUT_MS }: ReadOptions = {}): Promise<ApiAnswer<T>> => {
    // A plain timer: AbortSignal.timeout inside AbortSignal.any can be collected on Node 20 and never fire.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const stop = () => deadline.abort();
    signal?.addEventListener('abort', stop, { once: true });
    const late = () => refusal(0, `The API did not answer within ${timeoutMs / 1_000} s.`);
    try {
      let response: Response;
      try {
        // The request this read is made for, if any (the collector's reads are for none).
        const headers = withRequestId(new Headers({ authorization: authorizationOf(apiKey), accept: 'application/json' }));
        const answer = fetchApi({ method: 'GET', target: `${API_PREFIX}${path}`, headers, signal: deadline.signal });
        const timedOut = new Promise<null>((resolve) => deadline.signal.addEventListener('abort', () => resolve(null), { once: true }));
        const first = await Promise.race([answer, timedOut]);
        if (first === null) return late();
        response = first;
      } catch {
        return deadline.signal.aborted ? late() : refusal(0, 'The API did not answer.');
      }
      if (response.type === 'error') return refusal(0, 'The API closed the connection without answering.');
      const text = await response.text().catch(() => '');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      const requestId = response.headers.get(REQUEST_ID_HEADER) ?? undefined;
      if (!response.ok) {
        const body = ApiErrorBodySchema.safeParse(json);
        const words = body.success && body.data.message ? `: ${body.data.message}` : '';
        return refusal(response.status, `HTTP ${response.status}${words}`, {
          detail: body.success && body.data.message ? body.data.message : undefined,
          code: body.success && body.data.code ? body.data.code : undefined,
          requestId: requestId ?? (body.success ? body.data.request_id : undefined),
          retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
          body: text,
        });
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) return refusal(response.status, 'The API answered with something the console could not read.', { requestId });
      return { ok: true, status: response.status, data: parsed.data };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  };
}
