// The headers every response of the console's server carries (docs/session-and-security.md).
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../src/lib/hosts';
import { hostNameOf } from './host-check';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Powerful features the console never uses, off for it and anything it could ever embed (the clipboard stays: Copy buttons). */
export const PERMISSIONS_POLICY = [
  'accelerometer',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ');

/** A private console asks search engines not to index or follow anything it serves: this header on every answer, and /robots.txt. */
export const ROBOTS_TAG = 'noindex, nofollow';
export const ROBOTS_PATH = '/robots.txt';
export const ROBOTS_TXT = 'User-agent: *\nDisallow: /\n';

/** A year; no includeSubDomains or preload: the console does not speak for other hosts of its domain. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** The CSP, with the hashes of the page's inlined <style> (server/pages/inline-css.ts) allowed beside 'self'. */
export function contentSecurityPolicy(styleHashes: readonly string[] = []): string {
  if (styleHashes.length === 0) return CONTENT_SECURITY_POLICY;
  return CONTENT_SECURITY_POLICY.replace("style-src 'self'", `style-src 'self' ${styleHashes.join(' ')}`);
}

/** Headers on every response; dev leaves out the CSP because Vite's HMR and React refresh inject inline scripts. */
export function securityHeaders({ withCsp, styleHashes = [] }: { withCsp: boolean; styleHashes?: readonly string[] }): Record<string, string> {
  return {
    ...(withCsp ? { 'Content-Security-Policy': contentSecurityPolicy(styleHashes) } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    // No other site may load the console's answers (its API JSON, its scripts) as a resource of its own.
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
    'X-Robots-Tag': ROBOTS_TAG,
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim().toLowerCase();
}

/**
 * Whether a response gets Strict-Transport-Security: when PUBLIC_URL is https, or the request came over
 * TLS (directly, or said so by a TLS proxy's X-Forwarded-Proto). Browsers honour the header only on an
 * https response, so a forged X-Forwarded-Proto over plain http has no effect. Never for loopback names:
 * a year of https-only for `localhost` would break every other local server on it.
 */
export function wantsStrictTransport(req: IncomingMessage, publicUrl: URL | undefined): boolean {
  if (isLoopbackHost(hostNameOf(req.headers.host) ?? '')) return false;
  if (publicUrl?.protocol === 'https:') return true;
  if ('encrypted' in req.socket && req.socket.encrypted === true) return true;
  return first(req.headers['x-forwarded-proto']) === 'https';
}
