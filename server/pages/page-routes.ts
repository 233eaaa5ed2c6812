// The pages and files, declared in their room: every page route of the console (src/config/paths.ts's
// routePatterns, each its own log and metrics label), the catch-all every other GET falls to (a page the
// client's router resolves, its own "Page not found" included), built files, robots.txt and, in dev, Vite's
// module paths. Production serves files first (a page is whatever no file answers); dev answers a navigation
// first (pagesFirst), before Vite sees it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PageData } from '../../src/api/page-data';
import { isReadableId, routePatterns } from '../../src/config/paths';
import type { ApiFetch } from '../http/node-bridge';
import { decodeSegment } from '../http/paths';
import { READ_METHODS, type Handler, type RouteContext } from '../http/route';
import { ROBOTS_PATH, ROBOTS_TXT } from '../http/security-headers';
import { sendText } from '../http/send-text';
import { ASSETS_PREFIX, type AssetHandler } from '../http/static-assets';
import { OVERLOADED_WAITING, type TurnBudget } from '../http/turn-budget';
import type { Logger } from '../log/logger';
import type { ProjectAccess } from '../proxy/project-access';
import { endRejectedSession, type Route } from '../session/route-guard';
import type { Sessions } from '../session/sessions';
import type { TeamDoor } from '../session/team-door';
import { serveBounce } from './bounce';
import { servePage, type OwnRoutesFetch, type PageRenderer, type PageSent, type PageTemplate } from './page';
import { createRenderSlots, MAX_CONCURRENT_REACT_RENDERS } from './render-slots';

/** What `npm run dev`'s Vite serves, a module at a time: hundreds a page, quiet lines. */
const DEV_MODULES = ['/@vite', '/@fs', '/@id', '/@react-refresh', '/src', '/node_modules'];

export interface PagesOptions {
  template: PageTemplate;
  /** Built files (production) or Vite's middlewares (dev); calls `next` for anything it does not serve. */
  assets: AssetHandler;
  /** Dev: a GET that is a page (an HTML navigation), answered before Vite sees it. Production: none (files first). */
  pagesFirst?: ((req: IncomingMessage) => boolean) | undefined;
  render?: PageRenderer | undefined;
  /** How long a rendered page waits for its data before it goes out as the shell (pages/page.ts's default otherwise). */
  renderDeadlineMs?: number | undefined;
  /** Renders at once in this process before pages go out as the shell (pages/render-slots.ts's MAX_CONCURRENT_RENDERS otherwise). */
  maxRenders?: number | undefined;
  /** React renders at once in this process, their data in (pages/render-slots.ts's MAX_CONCURRENT_REACT_RENDERS otherwise). */
  maxReactRenders?: number | undefined;
  sessions: Sessions;
  fetchApi: ApiFetch;
  /** The console's own routes a rendered page reads in process (the insights). */
  fetchOwn?: OwnRoutesFetch | undefined;
  /** The turn budget: requests waiting for the CPU send pages out as the shell at once. */
  turns: TurnBudget;
  /** The real API /api/v2 is forwarded to, as every page says (PageData.apiUrl); undefined: the built-in simulator. */
  apiUrl?: string | undefined;
  /** LIVE_EVENTS=off: every page says the server streams no changes (PageData.live), so none opens /events. */
  liveOff?: boolean;
  log: Logger;
  sent?: ((page: PageSent) => void) | undefined;
  /** Team sign-in (docs/team.md): a signed-out page goes to the identity provider, a person without a role sees "No access". */
  team?: Pick<TeamDoor, 'page'> | undefined;
  /** Whether a session's key reads a project (kept a minute): a deep link to one it cannot read is a 404. */
  access?: Pick<ProjectAccess, 'check'> | undefined;
}

/** The pages of one project (its history, an operation, its insights): their address names it as `:projectId`. */
const PROJECT_PAGES: ReadonlySet<string> = new Set([routePatterns.project, routePatterns.operation, routePatterns.projectInsights]);

export interface Pages {
  routes: Route[];
  /** A page with the data block given (a form post that failed: its data says why), at `status`. */
  serve: (req: IncomingMessage, res: ServerResponse, data: PageData, status: number) => Promise<void>;
}

/** A navigation from another site: the SameSite=Strict cookie was not sent with it. */
function isCrossSiteNavigation(req: IncomingMessage): boolean {
  return req.headers['sec-fetch-site'] === 'cross-site' && req.headers['sec-fetch-mode'] === 'navigate';
}

/** Lets the asset middleware answer first; `next` answers what it leaves. Settles once either has. */
function filesFirst(assets: AssetHandler, req: IncomingMessage, res: ServerResponse, next: () => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    res.once('close', () => resolve());
    assets(req, res, () => void next().then(resolve, reject));
  });
}

export function createPages(options: PagesOptions): Pages {
  const { sessions, template, assets, render, turns, log } = options;
  const slots = createRenderSlots(options.maxRenders);
  const reactRenders = createRenderSlots(options.maxReactRenders ?? MAX_CONCURRENT_REACT_RENDERS);

  const page = async (req: IncomingMessage, res: ServerResponse, data?: PageData, status = 200, projectParam?: string) => {
    const current = sessions.read(req);
    if (current.state === 'ended') res.setHeader('Set-Cookie', sessions.expire(req));
    if (current.state !== 'open' && isCrossSiteNavigation(req)) {
      serveBounce(req, res);
      return;
    }
    if (options.team?.page(req, res, current)) return;
    const session = current.state === 'open' ? current.session : null;
    // A project's page names its project in the address: whether the key reads it decides the status (docs/rendering.md).
    const projectId = projectParam === undefined ? undefined : decodeSegment(projectParam);
    const access = options.access;
    const missing =
      access && session && projectId !== undefined && isReadableId(projectId)
        ? async () => (await access.check(session.sid, session.key, projectId)).kind === 'denied'
        : undefined;
    await servePage(req, res, {
      missing,
      template,
      session,
      render,
      slots,
      overloaded: () => turns.waiting >= OVERLOADED_WAITING,
      reactRenders,
      status,
      fetchApi: options.fetchApi,
      fetchOwn: options.fetchOwn,
      // A cookie that no longer opens a session: the key screen says why (a restart is not the key's fault).
      data: {
        ...(data ?? { session: sessions.describe(session), ...(current.state === 'ended' ? { sessionEnded: current.why } : {}) }),
        ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
        ...(options.liveOff ? { live: false } : {}),
      },
      ...(options.renderDeadlineMs === undefined ? {} : { deadlineMs: options.renderDeadlineMs }),
      // The API refused the key while the page was rendered: the session ends here as on any 401.
      endSession: () => endRejectedSession(sessions, req, res),
      log,
      ...(options.sent ? { sent: options.sent } : {}),
    });
  };

  /** A page, or a file where one answers. */
  const pageOrFile: Handler = ({ req, res, params, route }) => {
    const projectId = PROJECT_PAGES.has(route) ? params.projectId : undefined;
    if (options.pagesFirst?.(req)) return page(req, res, undefined, 200, projectId);
    return filesFirst(assets, req, res, () => page(req, res, undefined, 200, projectId));
  };
  /** A module Vite serves in dev (a file first, always; in production the app page like any other path). */
  const devModule: Handler = ({ req, res }) => filesFirst(assets, req, res, () => page(req, res));
  const asPage = (url: string, handler = pageOrFile, quiet = false): Route => ({
    method: READ_METHODS,
    url,
    config: { needs: 'none', page: true, quiet },
    handler,
  });

  return {
    serve: (req, res, data, status) => page(req, res, data, status),
    routes: [
      ...Object.values(routePatterns).map((url) => asPage(url)),
      asPage('/*'),
      ...DEV_MODULES.flatMap((prefix) => [asPage(prefix, devModule, true), asPage(`${prefix}/*`, devModule, true)]),
      {
        method: READ_METHODS,
        url: `${ASSETS_PREFIX}*`,
        config: { needs: 'none', page: true },
        // A missing built file is a 404, never the app page.
        handler: ({ req, res }: RouteContext) => filesFirst(assets, req, res, () => sendText(req, res, 404, 'Not found')),
      },
      { method: READ_METHODS, url: ROBOTS_PATH, config: { needs: 'none' }, handler: ({ req, res }: RouteContext) => sendText(req, res, 200, ROBOTS_TXT) },
    ],
  };
}
