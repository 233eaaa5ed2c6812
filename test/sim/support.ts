// Shared arrangement for simulator tests: a control plane on a fake clock, and HTTP calls through the
// MSW handlers without a network (msw's getResponse).
import { getResponse } from 'msw';
import { fakeClock } from '../../sim/clock';
import { createControlPlane, type ControlPlaneOptions, type Principal } from '../../sim/control-plane';
import { createHandlers, REQUEST_ID_HEADER, type HandlerOptions } from '../../sim/handlers';
import { ApiFailure } from '../../sim/http-errors';

export const START = new Date('2026-11-22T12:00:00Z');
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const ORIGIN = 'http://sim.test';

export interface HttpResult {
  status: number;
  body: unknown;
  headers: Headers;
  requestId: string | null;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A control plane on a fake clock at START, and its handlers (`rateLimits` is theirs: the HTTP layer limits). */
export function createSim({ rateLimits, ...options }: Partial<ControlPlaneOptions> & Pick<HandlerOptions, 'rateLimits'> = {}) {
  const clock = fakeClock(START);
  const cp = createControlPlane({ clock, failureRate: 0, ...options });
  const handlers = createHandlers(cp, rateLimits === undefined ? {} : { rateLimits });

  async function call(method: string, path: string, opts: CallOptions = {}): Promise<HttpResult> {
    const headers = new Headers({ accept: 'application/json', ...opts.headers });
    if (opts.key != null) headers.set('authorization', `Bearer ${opts.key}`);
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers.set('content-type', 'application/json');
    }
    const request = new Request(`${ORIGIN}/api/v2${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const response = await getResponse(handlers, request);
    if (!response) throw new Error(`no simulator handler answered ${method} ${path}`);
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
      headers: response.headers,
      requestId: response.headers.get(REQUEST_ID_HEADER),
    };
  }

  /** A user with a personal key; returns the key's secret and principal. */
  function personalUser(name = 'Ada Lovelace') {
    const user = cp.addUser({ name });
    const key = cp.issueApiKey({ kind: 'personal', userId: user.id }, `${name} key`);
    return { userId: user.id, key: key.secret, keyId: key.id, principal: principalOf(key.secret) };
  }

  function principalOf(secret: string): Principal {
    const principal = cp.authenticate(secret);
    if (!principal) throw new Error('expected a usable key');
    return principal;
  }

  return { clock, cp, handlers, call, personalUser, principalOf };
}

/** Narrows a JSON body to an object for property access in assertions. */
export function json(result: HttpResult): Record<string, unknown> {
  if (typeof result.body !== 'object' || result.body === null || Array.isArray(result.body)) {
    throw new Error(`expected a JSON object body, got ${JSON.stringify(result.body)}`);
  }
  return result.body as Record<string, unknown>;
}

export function idsOf(items: readonly { id: string }[]): string[] {
  return items.map((item) => item.id);
}

/** Epoch ms of a wire timestamp. */
export const ms = (wire: string) => new Date(wire).getTime();

/** The ApiFailure a domain call throws, or undefined when it succeeds. */
export function failureOf(action: () => unknown): ApiFailure | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiFailure) return error;
    throw error;
  }
  return undefined;
}
