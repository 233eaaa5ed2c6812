// Notifications inside a running server: the service over the store, its routes for every process, and
// the loop (dispatch, deliver) in the process that collects: the collector writes the transitions, and
// one loop is enough (on one DATABASE_URL a second would be safe, not needed: the outbox is unique per
// event and claims are leased with SKIP LOCKED).
import type { ApiFetch } from '../node-adapter';
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
  db: Db;
  /** SESSION_SECRET (or the one kept in DATA_DIR): webhook secrets and makers' keys are sealed under a key derived from it. */
  sessionSecret: string;
  fetchApi: ApiFetch;
  /** PUBLIC_URL, else the address the server listens on: the base of the links events carry. */
  publicUrl: URL;
  env: NodeJS.ProcessEnv;
  /** Whether this process runs the loop (the one that collects). */
  deliver: boolean;
  log: (line: string) => void;
}

export function startNotifications({ db, sessionSecret, fetchApi, publicUrl, env, deliver, log }: StartNotificationsOptions): NotificationsRuntime {
  const notifications = createNotifications({
    db,
    seal: createNotifySeal(sessionSecret),
    access: createProjectAccess({ fetchApi }),
    send: sendWebhook,
    publicUrl,
    allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    log,
  });
  const stop = deliver ? notifications.start() : () => Promise.resolve();
  return { notifications, stop };
}
