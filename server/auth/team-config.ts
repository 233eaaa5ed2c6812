// Team sign-in's environment (docs/team.md): SIGN_IN and what each mode needs, read once by server/config.ts.
// What the issue refuses stops start-up with a message: a team mode without TEAM_API_KEY or ROLES, an http
// issuer off this machine, a TRUSTED_PROXIES of `*` or every address.
import * as z from 'zod/mini';
import { isLoopbackHost } from '../../src/lib/hosts';
import { parseRoles, type RoleGroups } from './roles';
import { DEFAULT_TRUSTED_PROXIES, parseTrustedProxies, type TrustedProxies } from './trusted-proxies';

export const SignInModeSchema = z.enum(['key', 'oidc', 'proxy']);
export type SignInMode = z.infer<typeof SignInModeSchema>;

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  /** OIDC_SCOPES: asked for beside `openid email profile`. */
  extraScopes: string[];
  /** OIDC_GROUPS_CLAIM (default `groups`). */
  groupsClaim: string;
}

export interface ProxyConfig {
  /** AUTH_PROXY_USER_HEADER, lower case (default x-forwarded-email). */
  userHeader: string;
  /** AUTH_PROXY_GROUPS_HEADER, lower case (default x-forwarded-groups). */
  groupsHeader: string;
}

export type TeamConfig =
  | { mode: 'key'; sessionHours: number; auditRetentionDays: number }
  | {
      mode: 'oidc' | 'proxy';
      /** TEAM_API_KEY: the one key the console calls the API with; only the server ever holds it. */
      teamKey: string;
      roles: RoleGroups;
      oidc: OidcConfig | undefined;
      proxy: ProxyConfig;
      trustedProxies: TrustedProxies;
      sessionHours: number;
      auditRetentionDays: number;
    };

export const TEAM_DEFAULTS = {
  sessionHours: 12,
  auditRetentionDays: 400,
  groupsClaim: 'groups',
  userHeader: 'X-Forwarded-Email',
  groupsHeader: 'X-Forwarded-Groups',
} as const;

const optional = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

function whole(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, not "${text}".`);
  return Number(text);
}

/** OIDC_ISSUER: https, or http on this machine only (a test's provider). */
export function parseIssuer(text: string | undefined): URL {
  if (text === undefined) throw new Error('SIGN_IN=oidc needs OIDC_ISSUER (your identity provider’s issuer URL).');
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new Error(`OIDC_ISSUER must be an https URL, not "${text}".`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error(`OIDC_ISSUER must be https: "${text}" is plain http off this machine (http is allowed only on a loopback address, for tests).`);
  }
  return url;
}

export function readTeamConfig(env: NodeJS.ProcessEnv): TeamConfig {
  const modeText = optional(env.SIGN_IN) ?? 'key';
  const mode = SignInModeSchema.safeParse(modeText);
  if (!mode.success) throw new Error(`SIGN_IN must be key, oidc or proxy, not "${modeText}".`);
  const sessionHours = whole('SESSION_HOURS', optional(env.SESSION_HOURS), TEAM_DEFAULTS.sessionHours, 1, 24 * 30);
  const auditRetentionDays = whole('AUDIT_RETENTION_DAYS', optional(env.AUDIT_RETENTION_DAYS), TEAM_DEFAULTS.auditRetentionDays, 1, 36_500);
  if (mode.data === 'key') return { mode: 'key', sessionHours, auditRetentionDays };
  const teamKey = optional(env.TEAM_API_KEY);
  if (teamKey === undefined)
    throw new Error(`SIGN_IN=${mode.data} needs TEAM_API_KEY: the one key (typically an organization key) the console calls the API with.`);
  const rolesText = optional(env.ROLES);
  if (rolesText === undefined) throw new Error(`SIGN_IN=${mode.data} needs ROLES, e.g. ROLES="admin=platform-admins;operator=ops-oncall;viewer=*".`);
  const oidc: OidcConfig | undefined =
    mode.data === 'oidc'
      ? {
          issuer: parseIssuer(optional(env.OIDC_ISSUER)),
          clientId: optional(env.OIDC_CLIENT_ID) ?? fail('SIGN_IN=oidc needs OIDC_CLIENT_ID.'),
          clientSecret: optional(env.OIDC_CLIENT_SECRET),
          extraScopes: (optional(env.OIDC_SCOPES) ?? '').split(/[\s,]+/).filter(Boolean),
          groupsClaim: optional(env.OIDC_GROUPS_CLAIM) ?? TEAM_DEFAULTS.groupsClaim,
        }
      : undefined;
  return {
    mode: mode.data,
    teamKey,
    roles: parseRoles(rolesText),
    oidc,
    proxy: {
      userHeader: (optional(env.AUTH_PROXY_USER_HEADER) ?? TEAM_DEFAULTS.userHeader).toLowerCase(),
      groupsHeader: (optional(env.AUTH_PROXY_GROUPS_HEADER) ?? TEAM_DEFAULTS.groupsHeader).toLowerCase(),
    },
    trustedProxies: parseTrustedProxies(optional(env.TRUSTED_PROXIES) ?? DEFAULT_TRUSTED_PROXIES),
    sessionHours,
    auditRetentionDays,
  };
}

function fail(message: string): never {
  throw new Error(message);
}
