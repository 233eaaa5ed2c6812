// /healthz, /readyz and /metrics (docs/operations.md), declared as checks: never held by the
// turn budget, /healthz and /readyz before the Host check. /readyz answers anyone, like /healthz (a balancer may name the
// instance by its address), but only those who may read /metrics, or a client on this machine, see its checks'
// details (hosts, ports, error texts); others get each check's name and status. /metrics answers a request bearing METRICS_TOKEN; with none set, only a client on
// this machine that came straight in (a proxy in front of the console would make every visitor look local: a
// request it forwarded, with X-Forwarded-For or Forwarded, is refused too). Refusals are the console's error body.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost } from '../../src/lib/hosts';
import { sendError, sendJson, sendMethodNotAllowed } from '../http/answers';
import { discardBody } from '../http/body';
import { READ_METHODS, type RouteContext, type RouteOptions } from '../http/route';
import type { Metrics } from './metrics';
import { httpStatusOf, summaryOf, type ReadinessProbe } from './readiness';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

export const METRICS_UNAUTHORIZED_CODE = 'metrics_unauthorized';
export const METRICS_FORBIDDEN_CODE = 'metrics_forbidden';

const digest = (text: string) => createHash('sha256').update(text).digest();

function forwarded(req: IncomingMessage): boolean {
  return req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
}

/** Why a request may not read the metrics (status, words), or undefined when it may. */
export function metricsRefusal(req: IncomingMessage, token: string | undefined): { status: 401 | 403; message: string } | undefined {
  if (token !== undefined) {
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(digest(given), digest(token))
      ? undefined
      : { status: 401, message: 'The metrics need the bearer token METRICS_TOKEN names (Authorization: Bearer …).' };
  }
  if (isLoopbackHost(req.socket.remoteAddress ?? '') && !forwarded(req)) return undefined;
  return { status: 403, message: 'The metrics answer only on this machine while METRICS_TOKEN is unset: set it to read them from elsewhere.' };
}

function readOnly(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  sendMethodNotAllowed(res, req.method ?? '', ['GET', 'HEAD']);
  return false;
}

/** Whether /readyz shows this request its checks' details: a client on this machine, or one /metrics would answer. */
export function mayReadReadinessDetails(req: IncomingMessage, token: string | undefined): boolean {
  return metricsRefusal(req, undefined) === undefined || metricsRefusal(req, token) === undefined;
}

export async function serveReadiness(req: IncomingMessage, res: ServerResponse, ready: ReadinessProbe): Promise<void> {
  await discardBody(req);
  res.setHeader('Cache-Control', 'no-store');
  if (!readOnly(req, res)) return;
  const readiness = await ready();
  const status = httpStatusOf(readiness);
  if (req.method === 'HEAD') {
    res.statusCode = status;
    res.end();
    return;
  }
  sendJson(res, status, mayReadReadinessDetails(req, ready.metricsToken) ? readiness : summaryOf(readiness));
}

export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  { metrics, token }: { metrics: Metrics; token: string | undefined },
): Promise<void> {
  await discardBody(req);
  res.setHeader('Cache-Control', 'no-store');
  if (!readOnly(req, res)) return;
  const refused = metricsRefusal(req, token);
  if (refused) {
    if (refused.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    sendError(res, refused.status, refused.message, refused.status === 401 ? METRICS_UNAUTHORIZED_CODE : METRICS_FORBIDDEN_CODE);
    return;
  }
  const { contentType, text } = await metrics.scrape();
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.end(req.method === 'HEAD' ? undefined : text);
}

export interface OpsRoutesOptions {
  /** True once shutdown has begun: /healthz says so. */
  draining: () => boolean;
  ready: ReadinessProbe;
  metrics: Metrics;
  /** METRICS_TOKEN; undefined: /metrics answers loopback clients only. */
  metricsToken: string | undefined;
}

/** Liveness: cheap, never touches the store; 503 once draining, so a balancer stops sending. */
function serveHealth(req: IncomingMessage, res: ServerResponse, draining: () => boolean): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'application/json');
  res.statusCode = draining() ? 503 : 200;
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ status: draining() ? 'draining' : 'ok' }));
}

export function opsRoutes({ draining, ready, metrics, metricsToken }: OpsRoutesOptions): RouteOptions<RouteContext, 'none'>[] {
  return [
    {
      method: READ_METHODS,
      url: HEALTH_PATH,
      config: { needs: 'none', unheld: true, anyHost: true, quiet: true },
      handler: ({ req, res }) => {
        serveHealth(req, res, draining);
        return Promise.resolve();
      },
    },
    {
      method: READ_METHODS,
      url: READY_PATH,
      config: { needs: 'none', unheld: true, anyHost: true, quiet: true },
      handler: ({ req, res }) => serveReadiness(req, res, ready),
    },
    {
      method: READ_METHODS,
      url: METRICS_PATH,
      config: { needs: 'none', unheld: true, quiet: true },
      handler: ({ req, res }) => serveMetrics(req, res, { metrics, token: metricsToken }),
    },
  ];
}
