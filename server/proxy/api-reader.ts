// The collector's requests to the API: the kept key in this in-process call's Authorization header only
// (never in a URL, a log line or an error's words), the answer parsed with the API's own zod schemas.
import type { ZodMiniType } from 'zod/mini';
import { ApiErrorBodySchema } from '../../src/api/schemas';
import { API_PREFIX, type ApiFetch } from '../http/node-bridge';

export type ApiAnswer<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      /** 0: no answer at all (a dropped connection, a timeout). */
      status: number;
      /** In words, for the source's last error: the API's message when it gave one, never the key. */
      message: string;
      retryAfterMs: number | undefined;
    };

const REQUEST_TIMEOUT_MS = 30_000;

function retryAfterOf(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1_000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export type ApiReader = <T>(path: string, schema: ZodMiniType<T>, signal?: AbortSignal) => Promise<ApiAnswer<T>>;

/** Reads `path` (below /api/v2, query included) with `key`. */
export function apiReader(fetchApi: ApiFetch, key: string): ApiReader {
  return async <T>(path: string, schema: ZodMiniType<T>, signal?: AbortSignal): Promise<ApiAnswer<T>> => {
    const headers = new Headers({ authorization: `Bearer ${key}`, accept: 'application/json' });
    const deadline = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetchApi({ method: 'GET', target: `${API_PREFIX}${path}`, headers, signal: signal ? AbortSignal.any([signal, deadline]) : deadline });
    } catch {
      return { ok: false, status: 0, message: 'The API did not answer.', retryAfterMs: undefined };
    }
    if (response.type === 'error') return { ok: false, status: 0, message: 'The API closed the connection without answering.', retryAfterMs: undefined };
    const json: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const body = ApiErrorBodySchema.safeParse(json);
      const words = body.success && body.data.message ? `: ${body.data.message}` : '';
      return { ok: false, status: response.status, message: `HTTP ${response.status}${words}`, retryAfterMs: retryAfterOf(response) };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { ok: false, status: response.status, message: 'The API answered with something the console could not read.', retryAfterMs: undefined };
    return { ok: true, data: parsed.data };
  };
}
