// Notifications inside a running server: the service over the store, its routes for every process, and
// the loop (dispatch, deliver) in the process that collects: the collector writes the transitions, and
// one loop is enough (on one DATABASE_URL a second would be safe, not needed: the outbox is unique per
// event and claims are leased with SKIP LOCKED).
import { randomBytes } from 'node:crypto';
import type { Archive } from '../archive/archive-service';
import type { ServerConfig } from '../config';
import type { ApiFetch } from '../http/node-bridge';
import type { Db } from '../store/db';
import { createNotifications, type Notifications } from './notifications';
import { createProjectAccess } from './project-access';
import { createNotifySeal } from './secret-seal';
import { sendWebhook } from './send-webhook';

export interface NotificationsRuntime {
  notifications: Notifications;
  stop: () => Promise<void>;
}

export interface StartNotificationsOptions {
  /** The store, or how to reach it once it is open (the archive opens it lazily; a worker reaches the primary's). */
  db: Db | (() => Promise<Db>);
  /**
   * SESSION_SECRET (or the one kept in DATA_DIR): webhook secrets and makers' keys are sealed under a key
   * derived from it. Undefined (no usable DATA_DIR): random per start, so webhooks made now stop opening after a restart, like sessions.
   */
  sessionSecret: string | undefined;
  fetchApi: ApiFetch;
  /** PUBLIC_URL, else the address the server listens on: the base of the links events carry. */
  publicUrl: URL;
  env: NodeJS.ProcessEnv;
  /** Whether this process runs the loop (the one that collects). */
  deliver: boolean;
  log: (line: string) => void;
}

/** A Db that opens on first use: the routes and the loop are made before the store is reachable. */
export function lazyDb(open: () => Promise<Db>): Db {
  let opened: Promise<Db> | undefined;
  const get = () => (opened ??= open().catch((error: unknown) => {
    opened = undefined;
    throw error;
  }));
  return {
    query: async (text, params) => (await get()).query(text, params),
    transaction: async (fn) => (await get()).transaction(fn),
    close: async () => (opened ? (await opened).close() : undefined),
  };
}

export function startNotifications({ db, sessionSecret, fetchApi, publicUrl, env, deliver, log }: StartNotificationsOptions): NotificationsRuntime {
  const notifications = createNotifications({
    db: typeof db === 'function' ? lazyDb(db) : db,
    seal: createNotifySeal(sessionSecret ?? randomBytes(32).toString('base64')),
    access: createProjectAccess({ fetchApi }),
    send: sendWebhook,
    publicUrl,
    allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    log,
  });
  const stop = deliver ? notifications.start() : () => Promise.resolve();
  return { notifications, stop };
}

/**
 * Where the links events carry point: PUBLIC_URL, else the address this server listens on (loopback when it
 * binds every interface: a receiver elsewhere needs PUBLIC_URL, README: Notifications).
 */
export function linkBase(config: Pick<ServerConfig, 'publicUrl' | 'host' | 'port'>): URL {
  if (config.publicUrl) return new URL(config.publicUrl.href);
  const everyInterface = config.host === '' || config.host === '0.0.0.0' || config.host === '::';
  const host = everyInterface ? '127.0.0.1' : config.host;
  return new URL(`http://${host.includes(':') ? `[${host}]` : host}:${config.port}/`);
}

/**
 * The loop (dispatch, deliver) in the process that collects, from the moment the archive's store is open:
 * never opening it itself, so a server nobody keeps history with pays no PGlite start. Returns its stop.
 */
export function deliverOnceStoreOpens(archive: Pick<Archive, 'onOpen'>, notifications: Notifications): () => Promise<void> {
  let stopLoop: (() => Promise<void>) | undefined;
  let stopped = false;
  archive.onOpen(() => {
    if (!stopped) stopLoop ??= notifications.start();
  });
  return async () => {
    stopped = true;
    await stopLoop?.();
  };
}
