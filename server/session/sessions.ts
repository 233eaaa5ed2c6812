// The session as the server's routes see it: read from the request's cookie (sealed value, not revoked on
// this instance, not expired), started after a key was checked, ended by sign-out or a 401 from the API.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SIGNED_OUT, type PageSession } from '../../src/api/page-data';
import {
  KEY_REJECTED_CODE,
  KEY_REJECTED_MESSAGE,
  NOT_SIGNED_IN_CODE,
  NOT_SIGNED_IN_MESSAGE,
  SESSION_ENDED_CODES,
  SESSION_ENDED_MESSAGES,
  type SessionEnd,
} from '../../src/config/session';
import { sendError } from '../http/answers';
import { readBody } from '../http/body';
import { createRevokedSessions, type RevocationReason, type RevokedSessions } from './revoked-sessions';
import { cookieNameFor, expiredSessionCookie, isSecureContext, readCookie, REMEMBERED_TTL_MS, SESSION_TTL_MS, sessionCookie } from './session-cookie';
import type { Seal } from '../seal/seal';
import { createSessionCrypto, newSessionId, type Session } from './session-crypto';
import type { Person } from '../../src/model/roles';

export type SessionRead =
  | { state: 'none'; secure: boolean }
  /**
   * A cookie that no longer opens a session (expired, signed out, tampered with, another secret, or its key
   * refused by the API on an earlier request): to be expired.
   */
  | { state: 'ended'; secure: boolean; why: SessionEnd | 'rejected' }
  | { state: 'open'; secure: boolean; session: Session };

export interface Sessions {
  read: (req: IncomingMessage) => SessionRead;
  /** A new session for a checked key; returns it with its Set-Cookie header. */
  start: (req: IncomingMessage, key: string, kind: Session['kind'], remember: boolean) => { session: Session; cookie: string };
  /**
   * Revokes the request's session (if any) on every instance, because the person signed out (the default)
   * or the API refused its key; returns the Set-Cookie header that expires it.
   */
  end: (req: IncomingMessage, reason?: RevocationReason) => string;
  /** Resolves once the sessions ended here so far are refused by every worker of the cluster (sign-out waits for it). */
  spread: () => Promise<void>;
  /** The Set-Cookie header that expires the session cookie, for a request in this context. */
  expire: (req: IncomingMessage) => string;
  /** What the page may know about a session. */
  describe: (session: Session | null) => PageSession;
  /** Team sign-in (docs/team.md): a session for a person, for at most SESSION_HOURS; its cookie holds no key. */
  startPerson: (req: IncomingMessage, person: Person) => { session: Session; cookie: string };
}

/** Team sign-in: the team's key, which every person's session calls the API with, and how long a session lasts. */
export interface TeamSessions {
  mode: 'oidc' | 'proxy';
  teamKey: string;
  sessionHours: number;
}

export interface SessionsOptions {
  /** Sealing under SESSION_SECRET (or one kept in DATA_DIR); an ephemeral seal: no session outlives this process (the page is told). */
  seal: Seal;
  now?: () => number;
  revoked?: RevokedSessions;
  /** Team sign-in: sessions are people's, on the team key; a key's session (a cookie from the key screen) opens none. */
  team?: TeamSessions | undefined;
}

/** Cookies whose opened session is kept, so a busy session is not decrypted and parsed again on every request. */
export const OPENED_CACHE_ENTRIES = 1_000;

export function createSessions({ seal, now = Date.now, revoked = createRevokedSessions(now), team }: SessionsOptions): Sessions {
  const crypto = createSessionCrypto(seal);
  // Sealed cookie value → its session, for cookies that opened (the oldest goes first past the bound).
  // Only what the cookie itself says is kept: expiry and revocation are checked on every read.
  const opened = new Map<string, Session>();
  const fingerprints = new WeakMap<Session, string>();
  const open = (value: string, at: number) => {
    const known = opened.get(value);
    if (known) return known.exp <= at ? ({ state: 'expired' } as const) : ({ state: 'open', session: known } as const);
    let inspected = crypto.inspect(value, at);
    // A person's session holds the team's key on the server only; a key's session does not open in a team mode, nor a person's without one.
    if (inspected.state === 'open' && (team === undefined) !== (inspected.session.person === undefined)) inspected = { state: 'unreadable' };
    if (inspected.state === 'open' && team && inspected.session.person) inspected = { state: 'open', session: { ...inspected.session, key: team.teamKey } };
    if (inspected.state === 'open') {
      if (opened.size >= OPENED_CACHE_ENTRIES) opened.delete(opened.keys().next().value ?? '');
      opened.set(value, inspected.session);
    }
    return inspected;
  };
  const read = (req: IncomingMessage): SessionRead => {
    const secure = isSecureContext(req);
    const value = readCookie(req, cookieNameFor(secure));
    if (value === undefined || value === '') return { state: 'none', secure };
    const at = now();
    const result = open(value, at);
    // Not opened under this secret: a server that made a new one (a restart without a kept secret) or another SESSION_SECRET.
    if (result.state === 'unreadable') return { state: 'ended', secure, why: 'restarted' };
    if (result.state === 'expired') {
      opened.delete(value);
      return { state: 'ended', secure, why: 'expired' };
    }
    const revocation = revoked.reasonOf(result.session.sid);
    if (revocation !== undefined) return { state: 'ended', secure, why: revocation };
    return { state: 'open', secure, session: result.session };
  };
  const fingerprint = (session: Session) => {
    let known = fingerprints.get(session);
    if (known === undefined) {
      known = seal.fingerprint(session.key);
      fingerprints.set(session, known);
    }
    return known;
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
    startPerson(req, person) {
      if (!team) throw new Error('A person’s session needs team sign-in (SIGN_IN=oidc or proxy).');
      const secure = isSecureContext(req);
      const ttl = team.sessionHours * 60 * 60 * 1000;
      const sealed: Session = { key: '', kind: 'organization', sid: newSessionId(), remember: false, exp: now() + ttl, person };
      return { session: { ...sealed, key: team.teamKey }, cookie: sessionCookie(crypto.seal(sealed), { secure, maxAgeSeconds: ttl / 1000 }) };
    },
    end(req, reason = 'signed-out') {
      const current = read(req);
      if (current.state === 'open') revoked.revoke(current.session.sid, current.session.exp, reason);
      return expiredSessionCookie(current.secure);
    },
    spread: () => revoked.spread(),
    expire: (req) => expiredSessionCookie(isSecureContext(req)),
    describe(session) {
      const restart = seal.ephemeral ? { endsOnRestart: true } : {};
      const teamMode = team ? { team: team.mode } : {};
      if (!session) return { ...SIGNED_OUT, ...restart, ...teamMode };
      const person = session.person ? { person: session.person } : {};
      return { signedIn: true, fingerprint: fingerprint(session), keyKind: session.kind, remembered: session.remember, ...restart, ...teamMode, ...person };
    },
  };
}

/** Why a request opens no session, as the console's own 401 says it: coded so the page says why, never blaming the key unless the API refused it. */
function closedAnswer(current: Exclude<SessionRead, { state: 'open' }>): { message: string; code: string } {
  if (current.state === 'none') return { message: NOT_SIGNED_IN_MESSAGE, code: NOT_SIGNED_IN_CODE };
  if (current.why === 'rejected') return { message: KEY_REJECTED_MESSAGE, code: KEY_REJECTED_CODE };
  return { message: SESSION_ENDED_MESSAGES[current.why], code: SESSION_ENDED_CODES[current.why] };
}

/**
 * The one answer of every route of the console's own (and of /api/v2 without an Authorization of its own) to a
 * request that opens no session: the body is read first (`bodyLimit`: a body past it is still a 413, and the
 * answer reaches a client still sending), a cookie that names an ended session is expired, and the 401 says
 * why (SESSION_ENDED_CODES).
 */
export async function sendSessionClosed(
  req: IncomingMessage,
  res: ServerResponse,
  sessions: Pick<Sessions, 'expire'>,
  current: Exclude<SessionRead, { state: 'open' }>,
  bodyLimit: number,
): Promise<void> {
  await readBody(req, bodyLimit);
  if (current.state === 'ended') res.setHeader('Set-Cookie', sessions.expire(req));
  const { message, code } = closedAnswer(current);
  sendError(res, 401, message, code);
}
