// The HTML step of the pipeline: the app's index.html (template.ts) with a per-request data block and, for
// a signed-in request of a screen the server renders, that screen with its first data (signed out, the key
// screen, which needs none). Such a page streams: the head (the CSS) goes out at once, the body (then the
// page's code) once the data and the screen's code are in, or, past a short deadline, as the browser's plain
// shell (which then fetches the data itself, as on a page the server does not render). What renders the
// screen is a PageRenderer (server-render.ts over src/entry-server.tsx).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PageData } from '../../src/api/page-data';
import type { ScreenRender } from '../../src/entry-server';
import { pageBody, sendPage } from '../http/compression';
import type { ApiCall, ApiFetch } from '../http/node-bridge';
import type { Log } from '../log/logger';
import type { RenderSlots } from './render-slots';
import { injectPage, splitPage } from './template';
import type { Session } from '../session/session-crypto';

/** How long a page waits for its screen's data before it goes out as the shell and the browser asks itself. */
export const RENDER_DEADLINE_MS = 250;

/**
 * Once the data is in, how long past the deadline the render itself may still take before the page goes
 * out as the shell anyway. The deadline is for a slow API: a render cut off for the CPU time it needs
 * after its data arrived (a busy machine) made the browser fetch and render everything again, a second later.
 * Not for a render that took the process's last slot: at the cap the server is overloaded, and the
 * deadline sheds render work as it always did.
 */
export const RENDER_FINISH_MS = 500;

export interface PageTemplate {
  /** index.html as built (production) or as Vite transforms it for `url` (dev). */
  html: (url: string) => Promise<string>;
}

export interface RenderRequest {
  url: string;
  /** The open session (with the key, for the server's own requests); null when signed out. */
  session: Session | null;
  data: PageData;
  /** The API backend in process; `serverTransport(fetchApi, session.key)` gives request() its transport. */
  fetchApi: ApiFetch;
  /** The console's own routes a rendered screen reads (the insights), answered in process for the session. */
  fetchOwn?: OwnRoutesFetch | undefined;
  /** The process's cap on React renders at once (MAX_CONCURRENT_REACT_RENDERS); none, no cap. */
  reactRenders?: RenderSlots | undefined;
}

/** A call to one of the console's own routes, for an open session, answered in process. */
export type OwnRoutesFetch = (session: Session, call: ApiCall) => Promise<Response>;

/** A page the server renders: what its head adds, and the render of its screen (aborted when the page stops waiting). */
export interface RenderPlan {
  /** `<link>` tags for the screen's code (modulepreload, stylesheets), sent with the head. */
  headTags: string;
  /** The screen's own wait for its data, when longer than the page's (its data is the console's store's, not the API's). */
  deadlineMs?: number;
  /**
   * `signal`: the page stopped waiting (the browser went away, or the render ran past the deadline and
   * RENDER_FINISH_MS); `dataDeadline`: the deadline for the screen's data passed (a render whose data is
   * in by then goes on).
   */
  render: (signal: AbortSignal, dataDeadline: AbortSignal) => Promise<ScreenRender>;
}

/** Server rendering's hook; null leaves the plain client shell (the client loads as without it). */
export type PageRenderer = (request: RenderRequest) => Promise<RenderPlan | null>;

export interface PageOptions {
  template: PageTemplate;
  data: PageData;
  session: Session | null;
  fetchApi: ApiFetch;
  fetchOwn?: OwnRoutesFetch | undefined;
  render?: PageRenderer | undefined;
  /** The process's render cap: past it the page goes out as the shell (no cap when absent). */
  slots?: RenderSlots | undefined;
  /** Requests are waiting for the process's CPU (server/http/turn-budget.ts): the page goes out as the shell at once. */
  overloaded?: (() => boolean) | undefined;
  /** The process's cap on React renders once the data is in (no cap when absent). */
  reactRenders?: RenderSlots | undefined;
  status?: number;
  deadlineMs?: number;
  /** The API refused the session's key during the render: end the session as a 401 anywhere does. */
  endSession?: () => void;
  /** Where a render that broke (a bug, not the API) is reported. */
  log?: Log;
  /**
   * Whether the page names a project the session's key cannot read (the API answered 403 or 404): asked before a
   * rendered page's first byte, so that such a page is a 404 (its shell, whose screen says "not found").
   */
  missing?: (() => Promise<boolean>) | undefined;
  /** How the page went out: with its screen rendered, or as the shell the browser fills in (metrics count them). */
  sent?: (page: PageSent) => void;
}

export type PageSent = 'rendered' | 'shell';

function pageHeaders(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // The data block is this session's: no shared cache may keep it, nor the browser's back-forward copy.
  res.setHeader('Cache-Control', 'no-store');
}

/** Resolves with `fallback` once `ms` have passed, unless cancelled first. */
function deadline<T>(ms: number, fallback: T): { reached: Promise<T>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reached = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return { reached, cancel: () => clearTimeout(timer) };
}

async function streamRenderedPage(
  req: IncomingMessage,
  res: ServerResponse,
  plan: RenderPlan,
  page: Required<Pick<PageOptions, 'data' | 'deadlineMs'>> & PageOptions,
): Promise<void> {
  const { head, screen, rest, finish } = splitPage(await page.template.html(req.url ?? '/'), plan.headTags);
  pageHeaders(res, page.status ?? 200);
  const body = pageBody(req, res);
  // Heard from before anything is written: a person who leaves while the head is on its way stops the render too.
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  // The head now: the browser fetches the CSS and the screen's code while the server fetches its data.
  // Waiting for the write to reach the socket matters: Node corks a response's socket until the next
  // tick, and an in-process API answers in microtasks, so the head would otherwise leave with the body.
  await body.write(head);
  // The person left before the head went out: nothing to render for.
  if (stop.signal.aborted) return;
  const data = new AbortController();
  const deadlineMs = Math.max(page.deadlineMs, plan.deadlineMs ?? 0);
  const dataTimer = setTimeout(() => data.abort(), deadlineMs);
  const finishMs = page.slots?.full ? 0 : RENDER_FINISH_MS;
  const cutoff = deadline<ScreenRender>(deadlineMs + finishMs, { kind: 'unavailable', problem: 'The render did not finish in time.' });
  const outcome = await Promise.race([plan.render(stop.signal, data.signal), cutoff.reached]);
  clearTimeout(dataTimer);
  cutoff.cancel();
  switch (outcome.kind) {
    case 'rendered':
      // The rows first: the data block (the queries serialised, some 35 KB for a project's page) and the held
      // code follow once the rows are on their way, so no work that can come after them holds them back.
      await body.write(screen(outcome.html));
      if (!res.destroyed) body.end(rest({ ...page.data, queries: outcome.queries, renderedAt: outcome.renderedAt }, true));
      page.sent?.('rendered');
      return;
    case 'unauthorized':
      page.endSession?.();
      // The head went out already, so no Set-Cookie: the page signs out (its sign-out expires the cookie).
      body.end(finish({ ...page.data, sessionEnded: 'rejected' }));
      page.sent?.('shell');
      return;
    case 'broken':
      page.log?.(`Server rendering failed, sent the page without it: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`, {
        event: 'pages.render_failed',
        level: 'error',
      });
      break;
    case 'unavailable':
      break;
  }
  stop.abort();
  body.end(finish(page.data));
  page.sent?.('shell');
}

/** `missing`'s answer, or false when it has none within `ms` (or failed): such a page streams as before. */
async function isMissing(missing: PageOptions['missing'], ms: number): Promise<boolean> {
  if (!missing) return false;
  const waited = deadline(ms, false);
  try {
    return await Promise.race([missing(), waited.reached]);
  } catch {
    return false;
  } finally {
    waited.cancel();
  }
}

export async function servePage(req: IncomingMessage, res: ServerResponse, options: PageOptions): Promise<void> {
  const { template, data, session, fetchApi, fetchOwn, render, status = 200, deadlineMs = RENDER_DEADLINE_MS } = options;
  const url = req.url ?? '/';
  // A page is rendered for a GET, and for the answer to a key screen's form post that failed (its key screen again).
  const rendered = req.method === 'GET' || (req.method === 'POST' && data.signIn !== undefined);
  const plan = render && rendered ? await render({ url, session, data, fetchApi, fetchOwn, reactRenders: options.reactRenders }) : null;
  let pageStatus = status;
  if (plan && !options.overloaded?.() && (options.slots?.enter() ?? true)) {
    try {
      // The status goes with the first byte: a project the key cannot read is known before the head is sent (the
      // access check's answer is kept a minute per session: server/proxy/project-access.ts), or the page streams as
      // a 200 once the data's deadline has passed without an answer.
      if (!(await isMissing(options.missing, deadlineMs))) {
        await streamRenderedPage(req, res, plan, { ...options, data, deadlineMs });
        return;
      }
      pageStatus = 404;
    } finally {
      options.slots?.leave();
    }
  }
  const html = injectPage(await template.html(url), data);
  pageHeaders(res, pageStatus);
  sendPage(req, res, html);
  options.sent?.('shell');
}
