// Team sign-in at the door of every route (docs/team.md): who the request's person is (their sealed session, or
// a trusted proxy's headers), what their role lets them do (each route declares the role it needs; the forwarded
// API calls have theirs by method and path, src/model/api-roles.ts), the one 403 that names the needed role, and
// the audit trail's row for every change and every refusal, written before the answer goes out.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { roleReaches, NO_ACCESS_HEADING, refusalMessage, type Person, type Role } from '../../src/model/roles';
import { sendError } from '../http/answers';
import { discardBody } from '../http/body';
import type { Log } from '../log/logger';
import { currentRequestId } from '../log/request-context';
import type { Session } from '../session/session-crypto';
import type { SessionRead, Sessions } from '../session/sessions';
import type { TeamDoor } from '../session/team-door';
import type { Queryable } from '../store/db';
import { recordAudit } from '../store/audit-trail';
import { roleOf } from './roles';
import type { TeamConfig } from './team-config';

export type TeamSettings = Exclude<TeamConfig, { mode: 'key' }>;

/** The code of a refusal beyond a person's role (the page tells it from a key's 403). */
export const ROLE_REFUSED_CODE = 'role_refused';
export const NO_ROLE_CODE = 'no_role';

/** A proxy's person is believed for one request: no cookie, nothing to revoke (sign-out is the proxy's). */
const PROXY_SESSION_MS = 60_000;

/** The header's value, once (a repeated identity header is not believed). */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The person a trusted proxy names, from its headers; undefined when it names none. */
export function proxyPerson(req: IncomingMessage, team: TeamSettings): Person | undefined {
  const email = headerOf(req, team.proxy.userHeader);
  if (email === undefined) return undefined;
  const groups = (headerOf(req, team.proxy.groupsHeader) ?? '')
    .split(',')
    .map((group) => group.trim())
    .filter(Boolean);
  const name = headerOf(req, 'x-forwarded-preferred-username') ?? headerOf(req, 'x-forwarded-user') ?? email;
  return { email, name, role: roleOf(team.roles, groups) };
}

/**
 * Proxy mode's sessions: a request from TRUSTED_PROXIES that names a person is theirs; the same headers from any
 * other address are stripped (nothing later believes them) and logged with the request's id.
 */
export function proxySessions(base: Sessions, team: TeamSettings, log: Log, now: () => number = Date.now): Sessions {
  const read = (req: IncomingMessage): SessionRead => {
    const names = [team.proxy.userHeader, team.proxy.groupsHeader];
    if (names.some((name) => req.headers[name] !== undefined)) {
      const address = req.socket.remoteAddress;
      if (team.trustedProxies.trusts(address)) {
        const person = proxyPerson(req, team);
        if (person) {
          const session: Session = {
            key: team.teamKey,
            kind: 'organization',
            sid: `proxy:${person.email}`,
            remember: false,
            exp: now() + PROXY_SESSION_MS,
            person,
          };
          return { state: 'open', secure: base.read(req).secure, session };
        }
      } else {
        for (const name of names) Reflect.deleteProperty(req.headers, name);
        log(`Identity headers from ${address ?? 'an unknown address'}, not in TRUSTED_PROXIES, were ignored`, {
          event: 'auth.untrusted_proxy_headers',
          level: 'warn',
          address,
          requestId: currentRequestId(),
        });
      }
    }
    return base.read(req);
  };
  return { ...base, read };
}

export interface TeamGate extends TeamDoor {
  team: TeamSettings;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page of its own (no app, no data block): its heading, what it says, and sign-out where there is a session. */
export function teamNotice(heading: string, text: string, signOut: boolean): string {
  const form = signOut ? '<form method="post" action="/session/sign-out"><button type="submit">Sign out</button></form>' : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(heading)} · Ops Console</title></head><body><main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>${form}</main></body></html>`;
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(html);
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The most people a proxy's refused sign-ins are remembered for before the expired ones are dropped. */
const REFUSED_SIGN_INS_KEPT = 10_000;

export function createTeamGate(team: TeamSettings, db: Queryable, now: () => number = Date.now): TeamGate {
  const record: TeamGate['record'] = (entry) => {
    const requestId = currentRequestId();
    return recordAudit(db, { ...entry, ...(requestId === undefined ? {} : { requestId }) });
  };
  // Behind a proxy each request is its own sign-in: a person without a role is recorded once per SESSION_HOURS
  // (what a sign-in through OIDC lasts), not once per request (docs/team.md, "The audit trail"). Kept in memory:
  // each instance records its own first refusal.
  const windowMs = team.sessionHours * 60 * 60 * 1000;
  const refusedSignIns = new Map<string, number>();
  const refusedSignIn = async (person: Person) => {
    if (team.mode !== 'proxy') return;
    const at = now();
    const last = refusedSignIns.get(person.email);
    if (last !== undefined && at - last < windowMs) return;
    if (refusedSignIns.size >= REFUSED_SIGN_INS_KEPT) {
      for (const [email, when] of refusedSignIns) if (at - when >= windowMs) refusedSignIns.delete(email);
    }
    refusedSignIns.set(person.email, at);
    await record({ person, action: 'Sign-in refused: no role', target: 'console', status: 403 });
  };
  const refuse: TeamGate['refuse'] = async (res, person, needed, may, action, target, projectId) => {
    const message = refusalMessage(needed, may);
    await record({ person, action: `Refused: ${action}`, target, status: 403, ...(projectId === undefined ? {} : { projectId }) });
    sendError(res, 403, message, ROLE_REFUSED_CODE);
  };
  return {
    team,
    mode: team.mode,
    teamKey: team.teamKey,
    record,
    refuse,
    page(req, res, current) {
      if (current.state !== 'open') {
        if (team.mode === 'oidc') {
          const url = new URL(req.url ?? '/', 'http://console.invalid');
          res.statusCode = 303;
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('Location', `/auth/sign-in?return=${encodeURIComponent(`${url.pathname}${url.search}`)}`);
          res.end();
        } else {
          sendHtml(
            res,
            401,
            teamNotice('Not signed in', 'This console signs people in through the identity proxy in front of it; it did not name you.', false),
          );
        }
        return true;
      }
      const person = current.session.person;
      if (person && person.role === null) {
        // Written beside the answer (this door answers at once); a write the store fails is the trail's loss, not
        // the page's: "No access" is said either way.
        refusedSignIn(person).catch(() => undefined);
        sendHtml(
          res,
          403,
          teamNotice(NO_ACCESS_HEADING, `You are signed in as ${person.email}, but none of your groups gives you a role in this console. Ask an admin.`, true),
        );
        return true;
      }
      return false;
    },
    async allow(req, res, session, config) {
      const person = session.person;
      if (!person) return true;
      const needed: Role = config.role ?? 'admin';
      if (roleReaches(person.role, needed)) return true;
      await discardBody(req);
      if (person.role === null) {
        await refusedSignIn(person);
        sendError(res, 403, 'None of your groups gives you a role in this console.', NO_ROLE_CODE);
        return false;
      }
      const url = new URL(req.url ?? '/', 'http://console.invalid');
      await refuse(res, person, needed, config.may ?? 'do this', config.action ?? `${req.method ?? ''} ${url.pathname}`, url.pathname);
      return false;
    },
    async changed(req, res, session, config) {
      const person = session.person;
      if (!person || config.unaudited || !WRITES.has(req.method ?? '')) return;
      const url = new URL(req.url ?? '/', 'http://console.invalid');
      await record({ person, action: config.action ?? `${req.method ?? ''} ${url.pathname}`, target: url.pathname, status: res.statusCode });
    },
  };
}
