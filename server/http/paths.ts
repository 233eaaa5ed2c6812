// The paths the console's server answers under, and the one way a request's path is read.
import type { IncomingMessage } from 'node:http';

/** The mount point of the control API on the console's own origin. */
export const API_PREFIX = '/api/v2';

/** The simulator's fault plan control route (sim/faults.ts): never under the API prefix, never forwarded. */
export const FAULTS_CONTROL_PATH = '/__sim/faults';

/** `url` is `prefix`, or a path or query below it. */
export function isUnder(url: string | undefined, prefix: string): boolean {
  if (url === undefined || !url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}

export function isFaultControlPath(url: string | undefined): boolean {
  return isUnder(url, FAULTS_CONTROL_PATH);
}

export function isApiPath(url: string | undefined): boolean {
  return isUnder(url, API_PREFIX);
}

/** The request target's path, without its query. */
export function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
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

/** A path segment decoded, or undefined when its percent-encoding is malformed (`%E0%A4%A`). */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
