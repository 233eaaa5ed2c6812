// Cross-site writes are refused before anything acts on them (docs/session-and-security.md). The session cookie is
// SameSite=Strict already; this is the second lock, and the only one for browsers that do not
// honour SameSite. Requests that carry neither header (curl, neonctl, the API client) are not
// browser pages of another site, and bring their own key.
import type { IncomingMessage } from 'node:http';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Host and port of an Origin header; undefined for `null` or anything that is not an http(s) origin. */
function originHost(origin: string): string | undefined {
  const match = /^https?:\/\/([^/?#]+)$/.exec(origin);
  return match?.[1];
}

/**
 * Why a request must be refused as a cross-site write, or null when it may go on: a method that can
 * change something, sent by a page of another site (`Sec-Fetch-Site: cross-site` or `same-site`, i.e. a
 * sibling host) or from an `Origin` whose host is not the one the request was sent to (`null` included,
 * unless the browser says the request is same-origin).
 * The scheme is not compared: a TLS-terminating proxy in front makes the browser's https origin arrive here as http.
 */
export function crossSiteWriteProblem(req: IncomingMessage): string | null {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return null;
  const site = single(req.headers['sec-fetch-site'])?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return `A ${req.method ?? ''} request from another site (Sec-Fetch-Site: ${site}) is refused.`;
  const origin = single(req.headers.origin)?.toLowerCase();
  // A form our own page posts (the key screen, sign-out) comes with `Origin: null`: the console's
  // Referrer-Policy is no-referrer, and browsers then send the origin of a form post as null. The
  // browser's own Sec-Fetch-Site (no page can set it) still says where it came from.
  if (origin === 'null' && site === 'same-origin') return null;
  if (origin !== undefined) {
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || originHost(origin) !== host) {
      return `A ${req.method ?? ''} request from another origin (${origin === 'null' ? 'an opaque origin' : origin}) is refused.`;
    }
  }
  return null;
}
