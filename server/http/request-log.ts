// Every request's id and its one log line (docs/operations.md, "Logs" and "Request ids"): the id taken from
// X-Request-ID when it looks like one, else made, echoed in the answer's X-Request-ID, and carried to all the
// request's work (server/log/request-context.ts); once answered, a line with its route's template (never the raw
// path: it may hold ids, and its query search text), its status and how long it took, naming the API's own
// request id when the answer passed one on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log/logger';
import { requestIdFrom, X_REQUEST_ID, type RequestContext } from '../log/request-context';
import { REQUEST_ID_HEADER } from './answers';

/** One answered request, for what counts them (metrics). */
export interface AnsweredRequest {
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export interface RequestLogOptions {
  log: Logger;
  answered?: ((answer: AnsweredRequest) => void) | undefined;
  /** The template of the route the request matched in Fastify (server/routes/router.ts): `/projects/:projectId`, `/api/v2/*`, `/*`. */
  route: string;
  /** A probe's or a dev module's line: debug, not info. */
  quiet?: boolean | undefined;
}

/** Starts a request: its id (echoed at once), its route; its line is written once it is answered. Run its handling in the context returned. */
export function beginRequest(req: IncomingMessage, res: ServerResponse, { log, answered, route, quiet = false }: RequestLogOptions): RequestContext {
  const context: RequestContext = { id: requestIdFrom(req.headers[X_REQUEST_ID]), route };
  res.setHeader(X_REQUEST_ID, context.id);
  const started = performance.now();
  const method = req.method ?? 'GET';
  res.once('close', () => {
    const durationMs = performance.now() - started;
    const status = res.statusCode;
    // The API's id for this answer (x-neon-ret-request-id passed on), when it is not the console's own.
    const theirs = res.getHeader(REQUEST_ID_HEADER);
    const apiRequestId = typeof theirs === 'string' && theirs !== context.id ? theirs : undefined;
    log.request({
      requestId: context.id,
      method,
      route: context.route,
      status,
      durationMs,
      apiRequestId,
      aborted: !res.writableFinished,
      quiet,
    });
    answered?.({ route: context.route, method, status, seconds: durationMs / 1_000 });
  });
  return context;
}
