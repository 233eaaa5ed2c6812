// The server's one logger (docs/operations.md, "Logs"): a JSON line on stdout per request and per event
// (pino), or the same lines made readable (pino-pretty) with LOG_FORMAT=pretty or when stdout is a terminal.
// What the rest of the server sees is `Log`, a function of a message and optional fields (the event's name,
// its level, what it is about), so `(line: string) => void` still fits where a log is asked for; a line
// written while a request is handled carries that request's id (request-context.ts). Never given a key.
import { createRequire } from 'node:module';
import { pino, stdTimeFunctions, type Logger as PinoLogger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { currentRequestId } from './request-context';

/** pino-pretty and what it brings load only when a log is to be read by people (a tenth of a second at start otherwise). */
const loadPretty = () => (createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty).prettyFactory;

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevelSetting = (typeof LOG_LEVELS)[number];
/** The level of one line. */
export type LogLevel = Exclude<LogLevelSetting, 'silent'>;
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What an event line carries besides its message: its name (`store.unavailable`), its level (info by default), and facts about it. */
export interface LogFields {
  level?: LogLevel;
  event?: string;
  [field: string]: unknown;
}

/** Writes one event line. */
export type Log = (message: string, fields?: LogFields) => void;

/** One answered request, as its line says it. */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The route's template, never the raw path (it may hold ids, and its query search text). */
  route: string;
  status: number;
  durationMs: number;
  /** The API's own request id, when the answer passed one on (x-neon-ret-request-id). */
  apiRequestId?: string | undefined;
  /** The client went away before the answer was out. */
  aborted?: boolean;
  /** A balancer's or Prometheus's routine check: debug, not info. */
  quiet?: boolean;
}

export interface Logger extends Log {
  request: (line: RequestLine) => void;
}

/** Where lines go: stdout, or a test's collector. */
export interface LogDestination {
  write: (line: string) => unknown;
  isTTY?: boolean;
}

export interface LoggerOptions {
  level?: LogLevelSetting;
  /** Undefined: pretty when the destination is a terminal, JSON otherwise. */
  format?: LogFormat | undefined;
  destination?: LogDestination;
}

export function parseLogLevel(text: string | undefined): LogLevelSetting {
  if (text === undefined) return 'info';
  const level = LOG_LEVELS.find((name) => name === text.toLowerCase());
  if (!level) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${text}".`);
  return level;
}

export function parseLogFormat(text: string | undefined): LogFormat | undefined {
  if (text === undefined) return undefined;
  const format = LOG_FORMATS.find((name) => name === text.toLowerCase());
  if (!format) throw new Error(`LOG_FORMAT must be json or pretty, not "${text}".`);
  return format;
}

function pinoOver(destination: LogDestination, level: LogLevelSetting, pretty: boolean): PinoLogger {
  // pino-pretty's formatter in this thread, line by line: no worker thread, nothing lost at exit.
  const prettify = pretty ? loadPretty()({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,method,route,status', singleLine: true }) : undefined;
  const stream = prettify ? { write: (line: string) => void destination.write(prettify(line)) } : { write: (line: string) => void destination.write(line) };
  return pino(
    {
      level,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The request this line was written for, when there is one (a line's own request_id wins).
      mixin: () => {
        const id = currentRequestId();
        return id === undefined ? {} : { request_id: id };
      },
    },
    stream,
  );
}

export function createLogger({ level = 'info', format, destination = process.stdout }: LoggerOptions = {}): Logger {
  const lines = pinoOver(destination, level, (format ?? (destination.isTTY ? 'pretty' : 'json')) === 'pretty');
  const log: Log = (message, { level: at = 'info', ...fields } = {}) => lines[at](fields, message);
  return Object.assign(log, {
    request: ({ requestId, method, route, status, durationMs, apiRequestId, aborted = false, quiet = false }: RequestLine) =>
      lines[quiet ? 'debug' : status >= 500 ? 'warn' : 'info'](
        {
          event: 'request',
          request_id: requestId,
          method,
          route,
          status,
          duration_ms: Math.round(durationMs * 10) / 10,
          ...(apiRequestId === undefined ? {} : { api_request_id: apiRequestId }),
          ...(aborted ? { aborted } : {}),
        },
        `${method} ${route} ${status}`,
      ),
  });
}

/** A Logger over a plain Log (a test's, or another caller's): its events go there; request lines nowhere. */
export function asLogger(log: Log | Logger): Logger {
  return 'request' in log ? log : Object.assign((message: string, fields?: LogFields) => log(message, fields), { request: () => undefined });
}

let processLogger: Logger | undefined;

/**
 * The process's own lines, outside any one server (a start that failed, the primary of several instances):
 * LOG_FORMAT and LOG_LEVEL as far as they read (a bad value is what the line may be about).
 */
export const processLog: Logger = Object.assign((message: string, fields?: LogFields) => lazyProcessLogger()(message, fields), {
  request: (line: RequestLine) => lazyProcessLogger().request(line),
});

function lazyProcessLogger(): Logger {
  processLogger ??= createLogger({
    level: leniently(() => parseLogLevel(process.env.LOG_LEVEL || undefined), 'info'),
    format: leniently(() => parseLogFormat(process.env.LOG_FORMAT || undefined), undefined),
  });
  return processLogger;
}

function leniently<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
