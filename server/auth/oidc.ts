// OpenID Connect sign-in with openid-client 6 (docs/team.md, "OpenID Connect"): discovery from OIDC_ISSUER, the
// authorization code flow with PKCE, state and nonce held in a short-lived sealed cookie, scopes `openid email
// profile` plus OIDC_SCOPES; `GET /auth/sign-in?return=<path>` starts it (a same-origin path only), `GET
// /auth/callback` finishes it: the person's role from their groups (ROLES), read at every sign-in, into a sealed
// session of at most SESSION_HOURS. A person without a role is refused ("No access"), and recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as client from 'openid-client';
import * as z from 'zod/mini';
import { isLoopbackHost } from '../../src/lib/hosts';
import type { Person } from '../../src/model/roles';
import { sendError } from '../http/answers';
import { sameOriginPath } from '../http/paths';
import { READ_METHODS, type Handler } from '../http/route';
import type { Log } from '../log/logger';
import type { Seal } from '../seal/seal';
import { openRoute, type Route } from '../session/route-guard';
import { isSecureContext, readCookie } from '../session/session-cookie';
import type { Sessions } from '../session/sessions';
import { roleOf } from './roles';
import type { TeamGate } from './team-gate';

export const SIGN_IN_START_PATH = '/auth/sign-in';
export const SIGN_IN_CALLBACK_PATH = '/auth/callback';

/** A sign-in under way lasts this long: from the provider's login page back to the callback. */
export const FLOW_TTL_MS = 10 * 60_000;

const FlowSchema = z.object({ verifier: z.string(), state: z.string(), nonce: z.string(), returnTo: z.string(), exp: z.number() });
type Flow = z.infer<typeof FlowSchema>;

const flowCookieName = (secure: boolean) => (secure ? '__Host-ops_oidc' : 'ops_oidc');

/** Lax: the provider sends the browser back with a top-level GET from its own site. */
function flowCookie(req: IncomingMessage, value: string, maxAgeSeconds: number): string {
  const secure = isSecureContext(req);
  return [`${flowCookieName(secure)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : []), `Max-Age=${maxAgeSeconds}`].join('; ');
}

export interface OidcOptions {
  gate: TeamGate;
  sessions: Sessions;
  seal: Seal;
  log: Log;
  /** PUBLIC_URL: where the provider sends people back; else the request's own origin (its Host, already checked). */
  publicUrl: URL | undefined;
  now?: () => number;
}

export interface Oidc {
  routes: Route[];
  /** Where sign-out sends the browser after ending our session: the provider's end_session_endpoint, when it offers one. */
  signOutTo: (req: IncomingMessage) => Promise<string | undefined>;
}

const StringArray = z.array(z.string());

/** The groups claim as a list (a provider may send one group as a string). */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  const parsed = StringArray.safeParse(value);
  return parsed.success ? parsed.data : [];
}

export function createOidc({ gate, sessions, seal, log, publicUrl, now = Date.now }: OidcOptions): Oidc {
  const settings = gate.team.oidc;
  if (!settings) throw new Error('SIGN_IN=oidc needs its OIDC_* settings.');
  const insecure = settings.issuer.protocol === 'http:' && isLoopbackHost(settings.issuer.hostname);
  let discovered: Promise<client.Configuration> | undefined;
  // Discovery once, again after a failure (the provider may start after the console).
  const configuration = () => {
    discovered ??= client
      .discovery(
        settings.issuer,
        settings.clientId,
        settings.clientSecret,
        settings.clientSecret === undefined ? client.None() : undefined,
        // Plain http only for a provider on this machine (tests): config.ts refuses any other.
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- openid-client marks it so it stands out; only a loopback http issuer gets it (config.ts refuses any other)
        insecure ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };
  const origin = (req: IncomingMessage) =>
    publicUrl?.origin ?? `${isSecureContext(req) && req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
  const callbackUrl = (req: IncomingMessage) => new URL(SIGN_IN_CALLBACK_PATH, origin(req));
  const unreachable = (res: ServerResponse, error: unknown) => {
    log(`OIDC: the identity provider could not be reached (${error instanceof Error ? error.message : String(error)})`, {
      event: 'auth.oidc_unreachable',
      level: 'warn',
    });
    sendError(res, 502, 'The identity provider could not be reached; try again in a moment.', 'oidc_unreachable');
  };

  const start: Handler = async ({ req, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const returnTo = sameOriginPath(url.searchParams.get('return') ?? '/');
    let config: client.Configuration;
    try {
      config = await configuration();
    } catch (error) {
      unreachable(res, error);
      return;
    }
    const flow: Flow = {
      verifier: client.randomPKCECodeVerifier(),
      state: client.randomState(),
      nonce: client.randomNonce(),
      returnTo,
      exp: now() + FLOW_TTL_MS,
    };
    const target = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl(req).href,
      scope: ['openid', 'email', 'profile', ...settings.extraScopes].join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    res.setHeader('Set-Cookie', flowCookie(req, seal.seal('oidc-flow', JSON.stringify(flow)), FLOW_TTL_MS / 1000));
    res.statusCode = 303;
    res.setHeader('Location', target.href);
    res.end();
  };

  const readFlow = (req: IncomingMessage): Flow | undefined => {
    const value = readCookie(req, flowCookieName(isSecureContext(req)));
    const plain = value ? seal.open('oidc-flow', value) : null;
    if (plain === null) return undefined;
    try {
      const parsed = FlowSchema.safeParse(JSON.parse(plain));
      return parsed.success && parsed.data.exp > now() ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };

  const callback: Handler = async ({ req, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    const flow = readFlow(req);
    // The flow's cookie is spent either way.
    res.setHeader('Set-Cookie', flowCookie(req, '', 0));
    if (!flow) {
      res.statusCode = 303;
      res.setHeader('Location', `${SIGN_IN_START_PATH}?return=%2F`);
      res.end();
      return;
    }
    let person: Person;
    try {
      const config = await configuration();
      const current = new URL(req.url ?? '/', callbackUrl(req));
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('the provider sent no ID token');
      let info: Record<string, unknown> = claims;
      if (claims[settings.groupsClaim] === undefined || claims.email === undefined) {
        info = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      }
      const email = typeof info.email === 'string' ? info.email : claims.sub;
      const name = typeof info.name === 'string' ? info.name : typeof info.preferred_username === 'string' ? info.preferred_username : email;
      person = { email, name, role: roleOf(gate.team.roles, groupsOf(info[settings.groupsClaim])) };
    } catch (error) {
      log(`OIDC: a sign-in did not complete (${error instanceof Error ? error.message : String(error)})`, { event: 'auth.oidc_failed', level: 'warn' });
      sendError(res, 400, 'The sign-in did not complete; start again from the console.', 'oidc_failed');
      return;
    }
    // Without a role the person still gets a session: every page then says "No access" and offers a sign-out.
    if (person.role === null) await gate.record({ person, action: 'Sign-in refused: no role', target: 'console', status: 403 });
    const { cookie } = sessions.startPerson(req, person);
    res.setHeader('Set-Cookie', [flowCookie(req, '', 0), cookie]);
    res.statusCode = 303;
    res.setHeader('Location', flow.returnTo);
    res.end();
  };

  return {
    routes: [
      openRoute({ method: READ_METHODS, url: SIGN_IN_START_PATH, config: { needs: 'none' }, handler: start }),
      openRoute({ method: READ_METHODS, url: SIGN_IN_CALLBACK_PATH, config: { needs: 'none' }, handler: callback }),
    ],
    async signOutTo(req) {
      try {
        const config = await configuration();
        if (!config.serverMetadata().end_session_endpoint) return undefined;
        return client.buildEndSessionUrl(config, { post_logout_redirect_uri: new URL('/', origin(req)).href, client_id: settings.clientId }).href;
      } catch {
        return undefined;
      }
    },
  };
}
