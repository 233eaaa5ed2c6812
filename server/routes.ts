// The console's own server, one pipeline for `npm start` and `npm run dev`: every request's id and log line,
// security headers on every response, /healthz and /readyz, the Host check, /metrics, the cross-site write rule, the simulator's fault control, /api/v2 with the
// session's key, the session routes, static assets (built files, or Vite's dev middlewares), and every
// other GET is a page: index.html with the request's data block and, signed in, the rendered screen.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PageData } from '../src/api/page-data';
import { SESSION_PATH } from '../src/config/session';
import { isArchivePath } from './archive/archive-routes';
import { isInsightsPath, type Insights } from './insights/insights-routes';
import { sendError, sendMethodNotAllowed } from './http/answers';
import { BodyTooLargeError, discardBody } from './http/body';
import { crossSiteWriteProblem } from './http/csrf';
import { MISDIRECTED } from './http/host-check';
import { isApiPath, isFaultControlPath, pathOf } from './http/paths';
import { beginRequest, HEALTH_PATH, METRICS_PATH, READY_PATH } from './http/request-log';
import { ROBOTS_PATH, ROBOTS_TXT, securityHeaders, STRICT_TRANSPORT_SECURITY, wantsStrictTransport } from './http/security-headers';
import { ASSETS_PREFIX, type AssetHandler } from './http/static-assets';
import { createTurnBudget, OVERLOADED_WAITING, type TurnBudget } from './http/turn-budget';
import { asLogger, processLog, type Log, type Logger } from './log/logger';
import { runInRequest } from './log/request-context';
import type { Notifications } from './notify/notifications';
import { isNotifyPath, serveNotifyRoute } from './notify/notify-routes';
import type { Metrics } from './ops/metrics';
import { serveMetrics, serveReadiness } from './ops/ops-routes';
import type { Readiness } from './ops/readiness';
import { serveBounce } from './pages/bounce';
import { servePage, type PageRenderer, type PageTemplate } from './pages/page';
import { createRenderSlots, MAX_CONCURRENT_REACT_RENDERS } from './pages/render-slots';
import type { ApiBackend } from './proxy/api-backend';
import type { ApiReader } from './proxy/api-reader';
import { serveApi } from './session/api-route';
import { serveSessionRoute } from './session/session-routes';
import type { Sessions } from './session/sessions';
import { STORE_UNAVAILABLE_CODE, StoreUnavailableError } from './store/db';

export { HEALTH_PATH };

/** /readyz and /metrics (server/ops/); without them, those paths are pages like any other. */
export interface OpsRoutes {
  ready: () => Promise<Readiness>;
  metrics: Metrics;
  /** METRICS_TOKEN; undefined: /metrics answers loopback clients only. */
  metricsToken: string | undefined;
}

export interface RoutesOptions {
  backend: ApiBackend;
  sessions: Sessions;
  /** The server's own reads of the API (the session's key check). */
  read: ApiReader;
  template: PageTemplate;
  /** Built files (production) or Vite's middlewares (dev); calls `next` for anything it does not serve. */
  assets: AssetHandler;
  /** Dev serves no CSP: Vite's HMR needs inline scripts. */
  withCsp: boolean;
  /** Hashes of the <style> the template carries inline, for the CSP's style-src. */
  styleHashes?: readonly string[];
  faultControl: boolean;
  /** True once shutdown has begun: /healthz says so. */
  draining?: () => boolean;
  render?: PageRenderer;
  /** How long a rendered page waits for its data before it goes out as the shell (pages/page.ts's default otherwise). */
  renderDeadlineMs?: number;
  /** Renders at once in this process before pages go out as the shell (pages/render-slots.ts's MAX_CONCURRENT_RENDERS otherwise). */
  maxRenders?: number;
  /** React renders at once in this process, their data in (pages/render-slots.ts's MAX_CONCURRENT_REACT_RENDERS otherwise). */
  maxReactRenders?: number;
  /** Where each request's line and an internal error go: a Logger (server/log/logger.ts), or a Log that takes only the events. */
  log?: Log | Logger;
  ops?: OpsRoutes;
  /** Dev: a GET that is a page (an HTML navigation), answered before Vite sees it. Production: none (files first). */
  pagesFirst?: (req: IncomingMessage) => boolean;
  /** Whether a Host header names a host the console is served on (server/http/host-check.ts); every host without it. */
  hostAllowed?: (host: string | undefined) => boolean;
  /** PUBLIC_URL: https there turns HSTS on. */
  publicUrl?: URL | undefined;
  /** The /archive routes (server/archive/archive-routes.ts); without them, those paths are pages like any other. */
  archive?: RequestHandlerAsync;
  /** The insights' routes under /archive (server/insights/), also read in process by the pages the server renders. */
  insights?: Insights | undefined;
  /** Webhooks and their deliveries (server/notify/); without them, those paths are pages like any other. */
  notifications?: Notifications | undefined;
  /** How many requests start per turn of the event loop (server/http/turn-budget.ts's TURN_BUDGET_MS otherwise). */
  turns?: TurnBudget;
  /** The real API /api/v2 is forwarded to, as every page says (PageData.apiUrl); undefined: the built-in simulator. */
  apiUrl?: string | undefined;
}

type RequestHandlerAsync = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

function isUnderSession(path: string): boolean {
  return path === SESSION_PATH || path.startsWith(`${SESSION_PATH}/`);
}

/** An error's own words for the log: its message, else its name (an empty "Internal error:" helps no one). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || error.name || 'an error without a message';
}

async function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): Promise<void> {
  await discardBody(req);
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}

/** Pages and files take GET and HEAD only. */
async function methodNotAllowed(req: IncomingMessage, res: ServerResponse): Promise<void> {
  await discardBody(req);
  res.setHeader('Cache-Control', 'no-store');
  sendMethodNotAllowed(res, req.method ?? '', ['GET', 'HEAD']);
}

/** A navigation from another site: the SameSite=Strict cookie was not sent with it. */
function isCrossSiteNavigation(req: IncomingMessage): boolean {
  return req.headers['sec-fetch-site'] === 'cross-site' && req.headers['sec-fetch-mode'] === 'navigate';
}

export function createRequestHandler(options: RoutesOptions): RequestHandler {
  const { backend, sessions, template, assets, render, draining = () => false, ops } = options;
  const log = asLogger(options.log ?? processLog);
  const fail = (res: ServerResponse, error: unknown) => {
    res.setHeader('Cache-Control', 'no-store');
    // A body past its limit (the console's own 16 KiB, the API's 1 MiB) is the client's doing: 413, nothing to log.
    if (error instanceof BodyTooLargeError) {
      sendError(res, 413, error.message, 'body_too_large');
      return;
    }
    // The console's store, not the API: the page says which part failed (the store logs its own outage once).
    if (error instanceof StoreUnavailableError) {
      sendError(res, 503, error.message, STORE_UNAVAILABLE_CODE);
      return;
    }
    log(`Internal error: ${describeError(error)}`, { event: 'http.internal_error', level: 'error' });
    sendError(res, 500, 'Internal error while answering the request.');
  };
  const headers = Object.entries(securityHeaders({ withCsp: options.withCsp, ...(options.styleHashes ? { styleHashes: options.styleHashes } : {}) }));
  const slots = createRenderSlots(options.maxRenders);
  // A few requests started per turn of the event loop (server/http/turn-budget.ts); /healthz is never held.
  const turns = options.turns ?? createTurnBudget();
  const reactRenders = createRenderSlots(options.maxReactRenders ?? MAX_CONCURRENT_REACT_RENDERS);

  const page = async (req: IncomingMessage, res: ServerResponse, data?: PageData, status = 200) => {
    const current = sessions.read(req);
    if (current.state === 'ended') res.setHeader('Set-Cookie', sessions.expire(req));
    if (current.state !== 'open' && isCrossSiteNavigation(req)) {
      serveBounce(req, res);
      return;
    }
    const session = current.state === 'open' ? current.session : null;
    await servePage(req, res, {
      template,
      session,
      render,
      slots,
      overloaded: () => turns.waiting >= OVERLOADED_WAITING,
      reactRenders,
      status,
      fetchApi: backend.fetch,
      fetchOwn: options.insights?.fetch,
      // A cookie that no longer opens a session: the key screen says why (a restart is not the key's fault).
      data: {
        ...(data ?? { session: sessions.describe(session), ...(current.state === 'ended' ? { sessionEnded: current.why } : {}) }),
        ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
      },
      ...(options.renderDeadlineMs === undefined ? {} : { deadlineMs: options.renderDeadlineMs }),
      // The API refused the key while the page was rendered: the session ends here as on any 401.
      endSession: () => void sessions.end(req, 'rejected'),
      log,
      ...(ops ? { sent: ops.metrics.page } : {}),
    });
  };
  const sessionContext = {
    sessions,
    read: options.read,
    servePage: (req: IncomingMessage, res: ServerResponse, data: PageData, status: number) => page(req, res, data, status),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of headers) res.setHeader(name, value);
    if (wantsStrictTransport(req, options.publicUrl)) res.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    const path = pathOf(req);

    if (path === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'application/json');
      res.statusCode = draining() ? 503 : 200;
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ status: draining() ? 'draining' : 'ok' }));
      return;
    }
    if (ops && path === READY_PATH) {
      await serveReadiness(req, res, ops.ready);
      return;
    }
    // After /healthz (a load balancer's check may name the instance by its address), before anything else.
    if (options.hostAllowed && !options.hostAllowed(req.headers.host)) {
      await sendText(req, res, 421, MISDIRECTED);
      return;
    }
    if (path === ROBOTS_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      await sendText(req, res, 200, ROBOTS_TXT);
      return;
    }
    if (ops && path === METRICS_PATH) {
      await serveMetrics(req, res, { metrics: ops.metrics, token: ops.metricsToken });
      return;
    }
    const refused = crossSiteWriteProblem(req);
    if (refused) {
      await discardBody(req);
      res.setHeader('Cache-Control', 'no-store');
      sendError(res, 403, refused, 'cross_site_write');
      return;
    }
    if (isFaultControlPath(req.url)) {
      res.setHeader('Cache-Control', 'no-store');
      // Unmounted, it answers like any unknown path would, not with the app's HTML.
      if (options.faultControl && backend.faultControl) await backend.faultControl(req, res);
      else await sendText(req, res, 404, 'Not found');
      return;
    }
    if (isApiPath(req.url)) {
      await serveApi(req, res, { sessions, fetchApi: backend.fetch, serve: backend.serve });
      return;
    }
    if (isUnderSession(path) && (await serveSessionRoute(req, res, sessionContext))) return;
    if (options.insights && isInsightsPath(path)) {
      await options.insights.serve(req, res);
      return;
    }
    if (options.archive && isArchivePath(path)) {
      await options.archive(req, res);
      return;
    }
    if (options.notifications && isNotifyPath(path)) {
      await serveNotifyRoute(req, res, { sessions, notifications: options.notifications });
      return;
    }

    const isGet = req.method === 'GET' || req.method === 'HEAD';
    if (isGet && options.pagesFirst?.(req)) {
      await page(req, res);
      return;
    }
    assets(req, res, () => {
      // Any other GET is a page the client's router resolves (its own "Page not found" included); never a missing asset.
      const answer = isGet && !path.startsWith(ASSETS_PREFIX) ? page(req, res) : isGet ? sendText(req, res, 404, 'Not found') : methodNotAllowed(req, res);
      answer.catch((error: unknown) => fail(res, error));
    });
  };

  const start = (req: IncomingMessage, res: ServerResponse) => {
    // Gone while it waited for its turn: nobody to answer.
    if (res.destroyed) return;
    handle(req, res).catch((error: unknown) => fail(res, error));
  };
  const answered = ops?.metrics.answered;
  return (req, res) => {
    // The request's id and route from here on, in everything it awaits (server/log/request-context.ts).
    const context = beginRequest(req, res, { log, answered });
    const path = pathOf(req);
    // Checks are never held: a balancer's, and Prometheus's, which matter most when the process is busy.
    if (path === HEALTH_PATH || (ops && (path === READY_PATH || path === METRICS_PATH))) runInRequest(context, () => start(req, res));
    else turns.admit(() => runInRequest(context, () => start(req, res)));
  };
}
