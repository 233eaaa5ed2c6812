// The server's environment, read once at start-up (README.md's configuration table names every variable);
// a bad value stops start-up with a message instead of failing requests later.
import { availableParallelism } from 'node:os';
import * as z from 'zod/mini';
import { parseLogFormat, parseLogLevel, type LogFormat, type LogLevelSetting } from './log/logger';
import { SHUTDOWN_GRACE_MS } from './process/shutdown';
import { parseApiBase } from './proxy/forward-proxy';
import { PLATFORM_REQUESTS_PER_MINUTE } from '../src/config/platform-limits';
import { HUGE_PROJECT_OPERATIONS } from '../sim/seed';
import { readTeamConfig, type TeamConfig } from './auth/team-config';

export interface ServerConfig {
  host: string;
  port: number;
  apiUrl: string | undefined;
  simApiKey: string | undefined;
  simFaults: boolean;
  /** SIM_HUGE_PROJECT: how many operations the simulator's huge project has; 0, without one (sim/seed.ts). */
  simHugeProject: number;
  /** False with SIM_RATE_LIMITS=off: the simulator answers without the platform's rate limits (the load test). */
  simRateLimits: boolean;
  /** Undefined: one kept in DATA_DIR (server/session/session-secret.ts). */
  sessionSecret: string | undefined;
  /** PUBLIC_URL: the console's address as people reach it; its host is answered, and https turns HSTS on. */
  publicUrl: URL | undefined;
  /** ALLOWED_HOSTS: more host names the server answers (server/http/host-check.ts). */
  allowedHosts: string[];
  /** DATA_DIR: where the server keeps what outlives a restart (default `.data`, relative to the working directory). */
  dataDir: string;
  /** DATABASE_URL: the store on a Postgres server; undefined: PGlite in DATA_DIR/store. */
  databaseUrl: string | undefined;
  /** ARCHIVE_BUDGET: the collector's API requests a minute per kept key (default CONFIG_DEFAULTS.archiveBudget; at most the platform's limit, which it shares). */
  archiveBudget: number;
  /** ARCHIVE_LOCK_RETRY_MS: how often an instance that does not collect tries to take the collector's lock (default 15 s). */
  archiveLockRetryMs: number;
  /** ARCHIVE_FULL_READ_MS: how often each project's whole history is read again to find what the API dropped (default 1 h). */
  archiveFullReadMs: number;
  /** ARCHIVE_INTERVAL_MS: the collector's poll interval for busy projects (idle ones: 6 times it), default 5 s. */
  archiveIntervalMs: number;
  /** WEBHOOK_ALLOW_PRIVATE=1: webhooks may target loopback and private addresses. */
  webhookAllowPrivate: boolean;
  /** LIVE_EVENTS=off: no GET /events, and pages poll as they did before it (docs/live.md, "Turning it off"). */
  liveEvents: boolean;
  /** WEB_CONCURRENCY as given (undefined: unset); processes() says how many run. */
  webConcurrency: number | undefined;
  /** API_URL is the built-in simulator served by the primary of several instances (process/run.ts), not a real API. */
  apiIsSimulator: boolean;
  /** METRICS_TOKEN: /metrics answers a request bearing it; undefined: only loopback clients (server/ops/ops-routes.ts). */
  metricsToken: string | undefined;
  /** LOG_FORMAT: json or pretty; undefined: pretty on a terminal, JSON otherwise (server/log/logger.ts). */
  logFormat: LogFormat | undefined;
  /** LOG_LEVEL: the least level written (default info: a line per request). */
  logLevel: LogLevelSetting;
  /** SHUTDOWN_GRACE_MS: how long a signalled server still accepts connections, /readyz 503 (server/process/shutdown.ts). */
  shutdownGraceMs: number;
  /** SIGN_IN and team sign-in's settings (server/auth/team-config.ts, docs/team.md); `key` by default: the key screen. */
  team: TeamConfig;
}

/** Each setting's value when its variable is unset: readConfig's, and the parts' own when built without a ServerConfig (tests, the bench). */
export const CONFIG_DEFAULTS = {
  host: '127.0.0.1',
  port: 5173,
  dataDir: '.data',
  /** Well inside the platform's limit a minute, which people share with the collector. */
  archiveBudget: 300,
  archiveLockRetryMs: 15_000,
  archiveIntervalMs: 5_000,
  archiveFullReadMs: 60 * 60_000,
} as const;

/** Set by process/run.ts in each instance's environment when API_URL is its primary's simulator. */
export const API_IS_SIMULATOR_ENV = 'OPS_CONSOLE_API_IS_SIMULATOR';

export const MAX_PROCESSES = 64;

/**
 * How many processes serve: one with the embedded store (PGlite lives in one process; WEB_CONCURRENCY is
 * then not followed, and `note` says why), else WEB_CONCURRENCY, or one per core when it is unset.
 */
export function processes(config: Pick<ServerConfig, 'databaseUrl' | 'webConcurrency'>): { count: number; note?: string } {
  if (!config.databaseUrl) {
    const asked = config.webConcurrency ?? 1;
    return asked > 1 ? { count: 1, note: `Processes: 1 (WEB_CONCURRENCY=${asked} needs DATABASE_URL: the embedded store lives in one process)` } : { count: 1 };
  }
  return { count: config.webConcurrency ?? availableParallelism() };
}

function wholeNumber(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, not "${text}".`);
  return value;
}

/** SIM_HUGE_PROJECT: unset, none; `1`, the usual HUGE_PROJECT_OPERATIONS; or how many operations (1,000 or more: a full archive page). */
function hugeProject(text: string | undefined): number {
  if (text === undefined || text === '' || text === '0') return 0;
  if (text === '1') return HUGE_PROJECT_OPERATIONS;
  return wholeNumber('SIM_HUGE_PROJECT', text, 0, 1_000, 1_000_000);
}

function parseDatabaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^postgres(?:ql)?:\/\//.test(value) || !URL.canParse(value)) throw new Error('DATABASE_URL must be a postgres:// URL.');
  return value;
}

function parsePublicUrl(value: string | undefined): URL | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new Error(`PUBLIC_URL must be an http(s) URL, not "${value}".`);
  return url;
}

/** Set by main.ts when it picked NODE_ENV=production for React itself, not the operator. */
export const NODE_ENV_DEFAULTED = 'OPS_CONSOLE_NODE_ENV_DEFAULTED';

/** A bearer token people paste into Prometheus's config: printable, no spaces, long enough not to be guessed. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

function parseMetricsToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(value) || value.length < MIN_METRICS_TOKEN_LENGTH) {
    throw new Error(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} printable characters without spaces (e.g. \`openssl rand -hex 32\`).`);
  }
  return value;
}

/** Long enough that HKDF's input is not the weak link; a passphrase works as well as random bytes. */
export const MIN_SESSION_SECRET_LENGTH = 32;

const PortSchema = z.pipe(
  z.string().check(z.regex(/^\d{1,5}$/, 'PORT must be a number from 0 to 65535')),
  z.transform((value) => Number(value)),
);

const optional = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());

export function readConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const portText = optional(env.PORT) ?? String(CONFIG_DEFAULTS.port);
  const port = PortSchema.safeParse(portText);
  if (!port.success || port.data > 65_535) throw new Error(`PORT must be a number from 0 to 65535, not "${portText}".`);
  const apiUrl = optional(env.API_URL);
  if (apiUrl) parseApiBase(apiUrl);
  const sessionSecret = optional(env.SESSION_SECRET);
  if (sessionSecret !== undefined && sessionSecret.length < MIN_SESSION_SECRET_LENGTH) {
    throw new Error(`SESSION_SECRET must be at least ${MIN_SESSION_SECRET_LENGTH} characters (e.g. \`openssl rand -base64 32\`).`);
  }
  const databaseUrl = parseDatabaseUrl(optional(env.DATABASE_URL));
  // A deployment's secret comes from its environment: one kept in DATA_DIR sits beside what it seals (a copy of
  // the folder would open the kept keys), and instances on one database each need the same one.
  const deployed = databaseUrl ? 'DATABASE_URL is set' : env.NODE_ENV === 'production' && env[NODE_ENV_DEFAULTED] !== '1' ? 'NODE_ENV=production' : undefined;
  if (deployed && sessionSecret === undefined) {
    throw new Error(
      `SESSION_SECRET must be set when ${deployed} (at least ${MIN_SESSION_SECRET_LENGTH} characters, e.g. \`openssl rand -base64 32\`, the same on every instance): ` +
        'a secret kept in DATA_DIR would sit beside the keys it seals, and other instances would not share it.',
    );
  }
  return {
    host: optional(env.HOST) ?? CONFIG_DEFAULTS.host,
    port: port.data,
    apiUrl,
    simApiKey: optional(env.SIM_API_KEY),
    simFaults: env.SIM_FAULTS === '1',
    simHugeProject: hugeProject(env.SIM_HUGE_PROJECT),
    simRateLimits: env.SIM_RATE_LIMITS !== 'off',
    sessionSecret,
    publicUrl: parsePublicUrl(optional(env.PUBLIC_URL)),
    allowedHosts: (optional(env.ALLOWED_HOSTS) ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter(Boolean),
    dataDir: optional(env.DATA_DIR) ?? CONFIG_DEFAULTS.dataDir,
    databaseUrl,
    archiveBudget: wholeNumber('ARCHIVE_BUDGET', optional(env.ARCHIVE_BUDGET), CONFIG_DEFAULTS.archiveBudget, 1, PLATFORM_REQUESTS_PER_MINUTE),
    archiveLockRetryMs: wholeNumber('ARCHIVE_LOCK_RETRY_MS', optional(env.ARCHIVE_LOCK_RETRY_MS), CONFIG_DEFAULTS.archiveLockRetryMs, 50, 60_000),
    archiveIntervalMs: wholeNumber('ARCHIVE_INTERVAL_MS', optional(env.ARCHIVE_INTERVAL_MS), CONFIG_DEFAULTS.archiveIntervalMs, 100, 10 * 60_000),
    archiveFullReadMs: wholeNumber('ARCHIVE_FULL_READ_MS', optional(env.ARCHIVE_FULL_READ_MS), CONFIG_DEFAULTS.archiveFullReadMs, 1_000, 7 * 24 * 60 * 60_000),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    liveEvents: env.LIVE_EVENTS !== 'off',
    webConcurrency:
      optional(env.WEB_CONCURRENCY) === undefined ? undefined : wholeNumber('WEB_CONCURRENCY', optional(env.WEB_CONCURRENCY), 1, 1, MAX_PROCESSES),
    apiIsSimulator: apiUrl !== undefined && env[API_IS_SIMULATOR_ENV] === '1',
    metricsToken: parseMetricsToken(optional(env.METRICS_TOKEN)),
    logFormat: parseLogFormat(optional(env.LOG_FORMAT)),
    logLevel: parseLogLevel(optional(env.LOG_LEVEL)),
    shutdownGraceMs: wholeNumber('SHUTDOWN_GRACE_MS', optional(env.SHUTDOWN_GRACE_MS), SHUTDOWN_GRACE_MS, 0, 10 * 60_000),
    team: readTeamConfig(env),
  };
}
