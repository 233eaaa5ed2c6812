// Every request's id and its one log line (docs/operations.md, "Logs" and "Request ids"): the id taken from
// X-Request-ID when it looks like one, else made, echoed in the answer's X-Request-ID, and carried to all the
// request's work (server/log/request-context.ts); once answered, a line with its route's template (never the raw
// path: it may hold ids, and its query search text), its status and how long it took, naming the API's own
// request id when the answer passed one on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_PATH, SIGN_OUT_PATH } from '../../src/config/session';
import { routePatterns } from '../../src/config/paths';
import { ARCHIVE_ACTIVITY_PATH, ARCHIVE_API_PATH, ARCHIVE_SOURCES_PATH } from '../../src/api/archive-schemas';
import { NOTIFICATIONS_API_PATH, WATCHES_PATH, WEBHOOKS_PATH } from '../../src/api/notification-schemas';
import type { Logger } from '../log/logger';
import { requestIdFrom, X_REQUEST_ID, type RequestContext } from '../log/request-context';
import { REQUEST_ID_HEADER } from './answers';
import { API_PREFIX, FAULTS_CONTROL_PATH, pathOf } from './paths';
import { ASSETS_PREFIX } from './static-assets';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

/** What a balancer and Prometheus ask every few seconds: their lines are debug (a failing check's cause has its own event line). */
const PROBES: ReadonlySet<string> = new Set([HEALTH_PATH, READY_PATH, METRICS_PATH]);

/** Routes by their template, `:name` one segment: the console's pages, its own routes. */
const TEMPLATES = [
  HEALTH_PATH,
  READY_PATH,
  METRICS_PATH,
  SESSION_PATH,
  SIGN_OUT_PATH,
  ...Object.values(routePatterns),
  ARCHIVE_SOURCES_PATH,
  `${ARCHIVE_SOURCES_PATH}/:sourceId`,
  `${ARCHIVE_API_PATH}/projects/:projectId/operations`,
  ARCHIVE_ACTIVITY_PATH,
  WEBHOOKS_PATH,
  `${WEBHOOKS_PATH}/:webhookId`,
  `${WEBHOOKS_PATH}/:webhookId/test`,
  `${WEBHOOKS_PATH}/:webhookId/resume`,
  `${WEBHOOKS_PATH}/:webhookId/deliveries`,
  WATCHES_PATH,
].map((template) => ({ template, segments: template.split('/') }));

/** What `npm run dev`'s Vite serves, a module at a time: hundreds a page, debug lines. */
const DEV_MODULES = ['/@vite', '/@fs', '/@id', '/@react-refresh', '/src', '/node_modules'];

/** Whole subtrees named by their prefix (the API's paths are the API's; files are files). */
const PREFIXES = [API_PREFIX, FAULTS_CONTROL_PATH, ASSETS_PREFIX.replace(/\/$/, ''), ARCHIVE_API_PATH, NOTIFICATIONS_API_PATH, ...DEV_MODULES];

const QUIET = new Set([...PROBES, ...DEV_MODULES.map((prefix) => `${prefix}/*`)]);

/** The template of the route a path is for: `/projects/:projectId`, `/api/v2/*`; `/*` for any other page or file. */
export function routeTemplate(path: string): string {
  const segments = path.split('/');
  for (const { template, segments: wanted } of TEMPLATES) {
    if (wanted.length === segments.length && wanted.every((part, i) => (part.startsWith(':') ? segments[i] !== '' : part === segments[i]))) return template;
  }
  for (const prefix of PREFIXES) if (path === prefix || path.startsWith(`${prefix}/`)) return `${prefix}/*`;
  return '/*';
}

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
}

/** Starts a request: its id (echoed at once), its route; its line is written once it is answered. Run its handling in the context returned. */
export function beginRequest(req: IncomingMessage, res: ServerResponse, { log, answered }: RequestLogOptions): RequestContext {
  const context: RequestContext = { id: requestIdFrom(req.headers[X_REQUEST_ID]), route: routeTemplate(pathOf(req)) };
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
      quiet: QUIET.has(context.route),
    });
    answered?.({ route: context.route, method, status, seconds: durationMs / 1_000 });
  });
  return context;
}
