// The server's environment, read once at start-up (DESIGN §1 names every variable); a bad value stops
// start-up with a message instead of failing requests later.
import * as z from 'zod/mini';
import { parseApiBase } from './forward-proxy';

export interface ServerConfig {
  host: string;
  port: number;
  apiUrl: string | undefined;
  simApiKey: string | undefined;
  simFaults: boolean;
  simHugeProject: boolean;
  /** False with SIM_RATE_LIMITS=off: the simulator answers without the platform's rate limits (the load test). */
  simRateLimits: boolean;
  /** Undefined: one kept in DATA_DIR (server/session/session-secret.ts). */
  sessionSecret: string | undefined;
  /** PUBLIC_URL: the console's address as people reach it; its host is answered, and https turns HSTS on. */
  publicUrl: URL | undefined;
  /** ALLOWED_HOSTS: more host names the server answers (server/host-check.ts). */
  allowedHosts: string[];
  /** DATA_DIR: where the server keeps what outlives a restart (default `.data`, relative to the working directory). */
  dataDir: string;
}

function parsePublicUrl(value: string | undefined): URL | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new Error(`PUBLIC_URL must be an http(s) URL, not "${value}".`);
  return url;
}

/** Long enough that HKDF's input is not the weak link; a passphrase works as well as random bytes. */
export const MIN_SESSION_SECRET_LENGTH = 32;

const PortSchema = z.pipe(
  z.string().check(z.regex(/^\d{1,5}$/, 'PORT must be a number from 0 to 65535')),
  z.transform((value) => Number(value)),
);

const optional = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

export function readConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const portText = optional(env.PORT) ?? '5173';
  const port = PortSchema.safeParse(portText);
  if (!port.success || port.data > 65_535) throw new Error(`PORT must be a number from 0 to 65535, not "${portText}".`);
  const apiUrl = optional(env.API_URL);
  if (apiUrl) parseApiBase(apiUrl);
  const sessionSecret = optional(env.SESSION_SECRET);
  if (sessionSecret !== undefined && sessionSecret.length < MIN_SESSION_SECRET_LENGTH) {
    throw new Error(`SESSION_SECRET must be at least ${MIN_SESSION_SECRET_LENGTH} characters (e.g. \`openssl rand -base64 32\`).`);
  }
  return {
    host: optional(env.HOST) ?? '127.0.0.1',
    port: port.data,
    apiUrl,
    simApiKey: optional(env.SIM_API_KEY),
    simFaults: env.SIM_FAULTS === '1',
    simHugeProject: env.SIM_HUGE_PROJECT === '1',
    simRateLimits: env.SIM_RATE_LIMITS !== 'off',
    sessionSecret,
    publicUrl: parsePublicUrl(optional(env.PUBLIC_URL)),
    allowedHosts: (optional(env.ALLOWED_HOSTS) ?? '').split(',').map((host) => host.trim()).filter(Boolean),
    dataDir: optional(env.DATA_DIR) ?? '.data',
  };
}
