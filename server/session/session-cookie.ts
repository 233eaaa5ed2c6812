// The session cookie's attributes and name. `__Host-` (Secure, Path=/, no Domain: no other host or path
// can set or shadow it) wherever the browser accepts a Secure cookie: over https, and on loopback over
// plain http, which Chromium treats as a secure context (measured with Chromium 156 on
// http://127.0.0.1: it stores and sends `__Host-` cookies there). Plain http on any other host gets a
// name without the prefix and no Secure, since the browser would drop the cookie otherwise.
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../src/lib/hosts';
import { hostNameOf } from '../http/host-check';

export const SECURE_COOKIE_NAME = '__Host-ops_session';
export const PLAIN_COOKIE_NAME = 'ops_session';

/** Lifetime of a browser-session cookie's session, enforced by the server (browsers may restore such cookies). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Lifetime of a session kept with "Remember on this device". */
export const REMEMBERED_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Whether the browser talks https to us (directly, or to a TLS-terminating proxy that says so) or to a
 * loopback host. A forged `X-Forwarded-Proto` only makes the forger's own cookie stricter.
 */
export function isSecureContext(req: IncomingMessage): boolean {
  if ('encrypted' in req.socket && req.socket.encrypted === true) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  if (proto === 'https') return true;
  return isLoopbackHost(hostNameOf(req.headers.host) ?? '');
}

export function cookieNameFor(secure: boolean): string {
  return secure ? SECURE_COOKIE_NAME : PLAIN_COOKIE_NAME;
}

/** The value of cookie `name` in the request, if any (the first one: `__Host-` cannot be shadowed). */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; undefined makes a browser-session cookie. */
  maxAgeSeconds?: number | undefined;
}

export function sessionCookie(value: string, { secure, maxAgeSeconds }: CookieOptions): string {
  const parts = [`${cookieNameFor(secure)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (secure) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`);
  return parts.join('; ');
}

/** Tells the browser to drop the session cookie now. */
export function expiredSessionCookie(secure: boolean): string {
  return `${sessionCookie('', { secure, maxAgeSeconds: 0 })}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}
