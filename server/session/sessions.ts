// The session as the server's routes see it: read from the request's cookie (sealed value, not revoked on
// this instance, not expired), started after a key was checked, ended by sign-out or a 401 from the API.
import type { IncomingMessage } from 'node:http';
import { SIGNED_OUT, type PageSession } from '../../src/api/page-data';
import type { SessionEnd } from '../../src/config/session';
import { createRevokedSessions, type RevokedSessions } from './revoked-sessions';
import { cookieNameFor, expiredSessionCookie, isSecureContext, readCookie, REMEMBERED_TTL_MS, SESSION_TTL_MS, sessionCookie } from './session-cookie';
import { createSessionCrypto, newSessionId, type Session } from './session-crypto';

export type SessionRead =
  | { state: 'none'; secure: boolean }
  /** A cookie that no longer opens a session (expired, signed out, tampered with, another secret): to be expired. */
  | { state: 'ended'; secure: boolean; why: SessionEnd }
  | { state: 'open'; secure: boolean; session: Session };

export interface Sessions {
  read: (req: IncomingMessage) => SessionRead;
  /** A new session for a checked key; returns it with its Set-Cookie header. */
  start: (req: IncomingMessage, key: string, kind: Session['kind'], remember: boolean) => { session: Session; cookie: string };
  /** Revokes the request's session (if any) on this instance; returns the Set-Cookie header that expires it. */
  end: (req: IncomingMessage) => string;
  /** The Set-Cookie header that expires the session cookie, for a request in this context. */
  expire: (req: IncomingMessage) => string;
  /** What the page may know about a session. */
  describe: (session: Session | null) => PageSession;
}

export interface SessionsOptions {
  /** Undefined: random bytes made now, so no session outlives this process (the page is told). */
  secret: string | undefined;
  now?: () => number;
  revoked?: RevokedSessions;
}

export function createSessions({ secret, now = Date.now, revoked = createRevokedSessions(now) }: SessionsOptions): Sessions {
  const crypto = createSessionCrypto(secret);
  const read = (req: IncomingMessage): SessionRead => {
    const secure = isSecureContext(req);
    const value = readCookie(req, cookieNameFor(secure));
    if (value === undefined || value === '') return { state: 'none', secure };
    const opened = crypto.inspect(value, now());
    // Not opened under this secret: a server that made a new one (a restart without a kept secret) or another SESSION_SECRET.
    if (opened.state === 'unreadable') return { state: 'ended', secure, why: 'restarted' };
    if (opened.state === 'expired') return { state: 'ended', secure, why: 'expired' };
    if (revoked.isRevoked(opened.session.sid)) return { state: 'ended', secure, why: 'signed-out' };
    return { state: 'open', secure, session: opened.session };
  };
  return {
    read,
    start(req, key, kind, remember) {
      const secure = isSecureContext(req);
      const ttl = remember ? REMEMBERED_TTL_MS : SESSION_TTL_MS;
      const session: Session = { key, kind, sid: newSessionId(), remember, exp: now() + ttl };
      // Only a remembered session outlives the browser; a browser-session cookie gets no Max-Age.
      return { session, cookie: sessionCookie(crypto.seal(session), { secure, maxAgeSeconds: remember ? ttl / 1000 : undefined }) };
    },
    end(req) {
      const current = read(req);
      if (current.state === 'open') revoked.revoke(current.session.sid, current.session.exp);
      return expiredSessionCookie(current.secure);
    },
    expire: (req) => expiredSessionCookie(isSecureContext(req)),
    describe(session) {
      const restart = secret === undefined ? { endsOnRestart: true } : {};
      if (!session) return { ...SIGNED_OUT, ...restart };
      return { signedIn: true, fingerprint: crypto.fingerprint(session.key), keyKind: session.kind, remembered: session.remember, ...restart };
    },
  };
}
