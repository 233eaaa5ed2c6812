// The HTML step of the pipeline: the app's index.html with a per-request data block (src/api/page-data.ts)
// and, for a signed-in request of a screen the server renders, that screen with its first data (signed
// out, the key screen, which needs none). Such a page streams: the head (the CSS) goes out at once, the body (then the page's code) once the data and
// the screen's code are in, or, past a short deadline, as the browser's plain shell (which then fetches
// the data itself, as on a page the server does not render). The template, headers and escaping are here;
// what renders the screen is a PageRenderer (server/server-render.ts over src/entry-server.tsx).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HELD_CODE_ELEMENT_ID, PAGE_DATA_ELEMENT_ID, serializePageData, type PageData } from '../../src/api/page-data';
import type { ScreenRender } from '../../src/entry-server';
import { pageBody, sendPage } from '../http/compression';
import type { ApiFetch } from '../http/node-bridge';
import type { Session } from '../session/session-crypto';

/** Where the rendered app goes in index.html. */
export const APP_HTML_MARKER = '<!--app-html-->';

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

/**
 * Server-rendered pages one process has under way at once, waiting for their data included; past it a page
 * goes out as the shell at once instead of queueing behind them.
 */
export const MAX_CONCURRENT_RENDERS = 8;

/**
 * React renders one process runs at once, once their data is in (a page whose render is kept, server/render-memo.ts,
 * needs none). A render is CPU: more at once on a core only stretches each one's latency, and holds up
 * everything else the process answers (/healthz included); past it the page goes out as the shell.
 */
export const MAX_CONCURRENT_REACT_RENDERS = 2;

/** Counts the renders under way in one process; `enter` is refused past the cap. */
export interface RenderSlots {
  enter: () => boolean;
  leave: () => void;
  readonly inUse: number;
  /** Every slot taken: the next page goes out as the shell. */
  readonly full: boolean;
}

export function createRenderSlots(max = MAX_CONCURRENT_RENDERS): RenderSlots {
  let inUse = 0;
  return {
    enter: () => (inUse < max ? (inUse++, true) : false),
    leave: () => void (inUse = Math.max(0, inUse - 1)),
    get inUse() {
      return inUse;
    },
    get full() {
      return inUse >= max;
    },
  };
}

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
  /** The process's cap on React renders at once (MAX_CONCURRENT_REACT_RENDERS); none, no cap. */
  reactRenders?: RenderSlots | undefined;
}

/** A page the server renders: what its head adds, and the render of its screen (aborted when the page stops waiting). */
export interface RenderPlan {
  /** `<link>` tags for the screen's code (modulepreload, stylesheets), sent with the head. */
  headTags: string;
  /**
   * `signal`: the page stopped waiting (the browser went away, or the render ran past the deadline and
   * RENDER_FINISH_MS); `dataDeadline`: the deadline for the screen's data passed (a render whose data is
   * in by then goes on).
   */
  render: (signal: AbortSignal, dataDeadline: AbortSignal) => Promise<ScreenRender>;
}

/** Server rendering's hook; null leaves the plain client shell (the client loads as without it). */
export type PageRenderer = (request: RenderRequest) => Promise<RenderPlan | null>;

export function dataBlock(data: PageData): string {
  return `<script type="application/json" id="${PAGE_DATA_ELEMENT_ID}">${serializePageData(data)}</script>`;
}

/** index.html with the data block at the end of `<head>` (before the app's module script runs) and the app's HTML in its root. */
export function injectPage(template: string, data: PageData, appHtml = ''): string {
  const head = template.indexOf('</head>');
  if (head === -1) throw new Error('index.html has no </head>');
  const withData = `${template.slice(0, head)}${dataBlock(data)}${template.slice(head)}`;
  return withData.replace(APP_HTML_MARKER, () => appHtml);
}

/**
 * index.html cut where the app's HTML goes: the head part (with `headTags` at the end of `<head>`, less
 * the page's code) to send at once, and a function finishing the page with the app's HTML, the data block
 * and then the code (the module script and every modulepreload) at the end of `<body>`.
 */
export function splitPage(template: string, headTags: string): SplitPage {
  const key = `${headTags}\u0000${template}`;
  let split = splits.get(key);
  if (!split) {
    // The template and a screen's tags are the same on every request: cut once, not per render.
    if (splits.size >= MAX_CACHED_SPLITS) splits.clear();
    split = cutPage(template, headTags);
    splits.set(key, split);
  }
  return split;
}

interface SplitPage {
  head: string;
  finish: (data: PageData, appHtml?: string) => string;
}

const MAX_CACHED_SPLITS = 64;
/** The app's module script and the modulepreload links (index.html's and the screen's), as Vite and screenHeadTags write them. */
const MODULE_TAG = /<script type="module"[^>]*><\/script>|<link rel="modulepreload"[^>]*>/g;
const MODULE_SCRIPT = /^<script/;
const splits = new Map<string, SplitPage>();

function cutPage(template: string, headTags: string): SplitPage {
  const marker = template.indexOf(APP_HTML_MARKER);
  const headEnd = template.indexOf('</head>');
  const bodyEnd = template.lastIndexOf('</body>');
  if (marker === -1 || headEnd === -1 || bodyEnd < marker) throw new Error('index.html needs </head>, the app marker and </body>, in that order');
  const tail = template.slice(marker + APP_HTML_MARKER.length);
  const tailBodyEnd = bodyEnd - marker - APP_HTML_MARKER.length;
  // The page's code goes after the screen's HTML: the browser paints the rows before it fetches and compiles
  // any module (with them in the head, it compiled 23 modules while parsing the rows, and painted at 3.7–5×
  // the static page's time; at the end, 2.0–2.1×). The CSS stays in the head: the first paint needs it.
  let script = '';
  let preloads = '';
  const head = `${template.slice(0, headEnd)}${headTags}${template.slice(headEnd, marker)}`.replace(MODULE_TAG, (tag) => {
    if (MODULE_SCRIPT.test(tag)) script += tag;
    else preloads += tag;
    return '';
  });
  // Rendered rows paint without any code, and the browser's preload scanner finds links wherever they are
  // in what has arrived: a rendered page holds its preloads in an inert template until its entry runs
  // (app/held-code.ts). The same rendered project page served as a file, 15 loads each: first row at 307 ms
  // with its 29 preloads, 190 ms held (158 with none), the static page of bench/first-row.ts 153 ms.
  // The shell needs its code to show anything: its preloads go as they are.
  const held = `${script}<template id="${HELD_CODE_ELEMENT_ID}">${preloads}</template>`;
  return {
    head,
    finish: (data, appHtml = '') => `${appHtml}${tail.slice(0, tailBodyEnd)}${dataBlock(data)}${appHtml ? held : script + preloads}${tail.slice(tailBodyEnd)}`,
  };
}

export interface PageOptions {
  template: PageTemplate;
  data: PageData;
  session: Session | null;
  fetchApi: ApiFetch;
  render?: PageRenderer | undefined;
  /** The process's render cap: past it the page goes out as the shell (no cap when absent). */
  slots?: RenderSlots | undefined;
  /** Requests are waiting for the process's CPU (server/turn-budget.ts): the page goes out as the shell at once. */
  overloaded?: (() => boolean) | undefined;
  /** The process's cap on React renders once the data is in (no cap when absent). */
  reactRenders?: RenderSlots | undefined;
  status?: number;
  deadlineMs?: number;
  /** The API refused the session's key during the render: end the session as a 401 anywhere does. */
  endSession?: () => void;
  /** Where a render that broke (a bug, not the API) is reported. */
  log?: (line: string) => void;
}

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

async function streamRenderedPage(req: IncomingMessage, res: ServerResponse, plan: RenderPlan, page: Required<Pick<PageOptions, 'data' | 'deadlineMs'>> & PageOptions): Promise<void> {
  const { head, finish } = splitPage(await page.template.html(req.url ?? '/'), plan.headTags);
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
  const dataTimer = setTimeout(() => data.abort(), page.deadlineMs);
  const finishMs = page.slots?.full ? 0 : RENDER_FINISH_MS;
  const cutoff = deadline<ScreenRender>(page.deadlineMs + finishMs, { kind: 'unavailable', problem: 'The render did not finish in time.' });
  const outcome = await Promise.race([plan.render(stop.signal, data.signal), cutoff.reached]);
  clearTimeout(dataTimer);
  cutoff.cancel();
  switch (outcome.kind) {
    case 'rendered':
      body.end(finish({ ...page.data, queries: outcome.queries, renderedAt: outcome.renderedAt }, outcome.html));
      return;
    case 'unauthorized':
      page.endSession?.();
      // The head went out already, so no Set-Cookie: the page signs out (its sign-out expires the cookie).
      body.end(finish({ ...page.data, sessionEnded: 'rejected' }));
      return;
    case 'broken':
      page.log?.(`Server rendering failed, sent the page without it: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
      break;
    case 'unavailable':
      break;
  }
  stop.abort();
  body.end(finish(page.data));
}

export async function servePage(req: IncomingMessage, res: ServerResponse, options: PageOptions): Promise<void> {
  const { template, data, session, fetchApi, render, status = 200, deadlineMs = RENDER_DEADLINE_MS } = options;
  const url = req.url ?? '/';
  // A page is rendered for a GET, and for the answer to a key screen's form post that failed (its key screen again).
  const rendered = req.method === 'GET' || (req.method === 'POST' && data.signIn !== undefined);
  const plan = render && rendered ? await render({ url, session, data, fetchApi, reactRenders: options.reactRenders }) : null;
  if (plan && !options.overloaded?.() && (options.slots?.enter() ?? true)) {
    try {
      await streamRenderedPage(req, res, plan, { ...options, data, deadlineMs });
    } finally {
      options.slots?.leave();
    }
    return;
  }
  const html = injectPage(await template.html(url), data);
  pageHeaders(res, status);
  sendPage(req, res, html);
}

/**
 * A path on this origin to go back to, from a request target or a form field; `/` for anything else.
 * Checked after normalising: dot segments go first (`/.//evil.example` would become `//evil.example`,
 * another host to a browser), then runs of slashes fold into one, and the result must still be a path.
 */
export function sameOriginPath(target: string | undefined): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  try {
    const url = new URL(target, 'http://console.invalid');
    if (url.origin !== 'http://console.invalid') return '/';
    const path = `${url.pathname.replace(/\/{2,}/g, '/')}${url.search}${url.hash}`;
    return /^\/(?![/\\])/.test(path) ? path : '/';
  } catch {
    return '/';
  }
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A link from another site (chat, e-mail, a ticket) arrives without the SameSite=Strict session cookie.
 * This page sends the browser on to the same address from our own origin, where the cookie is sent: a
 * plain GET (it changes nothing), and the second request is same-origin, so it is never bounced again.
 */
export function serveBounce(req: IncomingMessage, res: ServerResponse): void {
  const target = escapeAttribute(sameOriginPath(req.url));
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${target}"><title>Ops Console</title></head><body><p><a href="${target}">Continue to Ops Console</a></p></body></html>`;
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(req.method === 'HEAD' ? undefined : html);
}
