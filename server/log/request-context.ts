// The request a piece of work is done for, carried by AsyncLocalStorage (node:async_hooks) from the moment
// server/routes.ts takes the request to everything it awaits: the API calls it makes (the proxy, the API
// reader, server rendering's transport), the error bodies it writes and the log lines it causes, all name one
// id without it being handed from function to function (docs/operations.md, "Request ids").
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header the id comes in on, goes back out on, and is sent to the API with. */
export const X_REQUEST_ID = 'x-request-id';

export interface RequestContext {
  readonly id: string;
  /** The route's template (`/projects/:projectId`, `/api/v2/*`), never the raw path. */
  readonly route: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

const ID_SHAPE = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's id when it looks like one (at most 128 of `[A-Za-z0-9._-]`), else a new one. */
export function requestIdFrom(header: string | readonly string[] | undefined): string {
  return typeof header === 'string' && ID_SHAPE.test(header) ? header : randomUUID();
}

/** Whether a value may be passed on as a request id (one a client sent, before it is trusted as one). */
export function isRequestId(value: string | null | undefined): value is string {
  return typeof value === 'string' && ID_SHAPE.test(value);
}

/** Runs `work` as the handling of the request `context` describes. */
export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The request being handled, if this code runs for one (the collector and the delivery loop do not). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.id;
}

/** Headers to an API call with the current request's id added (as they were outside a request). */
export function withRequestId(headers: Headers): Headers {
  const id = currentRequestId();
  if (id !== undefined) headers.set(X_REQUEST_ID, id);
  return headers;
}
