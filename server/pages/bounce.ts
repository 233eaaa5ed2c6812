import type { IncomingMessage, ServerResponse } from 'node:http';
import { sameOriginPath } from '../http/paths';
import { escapeAttribute } from './template';

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
