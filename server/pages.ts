// The HTML step of the pipeline: the app's index.html with a per-request data block (src/api/page-data.ts)
// and, once server rendering lands, the rendered screen. Server rendering plugs in as a PageRenderer:
// given the request's URL, its session and the data block, it returns the app's HTML and the data to hand
// over (the dehydrated query cache); the template, headers and escaping stay here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PAGE_DATA_ELEMENT_ID, serializePageData, type PageData } from '../src/api/page-data';
import type { ApiFetch } from './node-adapter';
import type { Session } from './session/session-crypto';

/** Where the rendered app goes in index.html. */
export const APP_HTML_MARKER = '<!--app-html-->';

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
}

/** Server rendering's hook; null leaves the plain client shell (the client loads as without it). */
export type PageRenderer = (request: RenderRequest) => Promise<{ appHtml: string; data: PageData } | null>;

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

export interface PageOptions {
  template: PageTemplate;
  data: PageData;
  session: Session | null;
  fetchApi: ApiFetch;
  render?: PageRenderer | undefined;
  status?: number;
}

export async function servePage(req: IncomingMessage, res: ServerResponse, { template, data, session, fetchApi, render, status = 200 }: PageOptions): Promise<void> {
  const url = req.url ?? '/';
  const rendered = render ? await render({ url, session, data, fetchApi }) : null;
  const html = injectPage(await template.html(url), rendered?.data ?? data, rendered?.appHtml);
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // The data block is this session's: no shared cache may keep it, nor the browser's back-forward copy.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(req.method === 'HEAD' ? undefined : html);
}

/** A path on this origin to go back to, from a request target or a form field; `/` for anything else. */
export function sameOriginPath(target: string | undefined): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  try {
    const url = new URL(target, 'http://console.invalid');
    if (url.origin !== 'http://console.invalid') return '/';
    return `${url.pathname}${url.search}${url.hash}`;
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
