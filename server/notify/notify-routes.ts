// The console's own notification routes (src/api/notification-schemas.ts), beside /archive: signed-in only
// (the session's key fingerprint decides which webhooks a person sees: the ones made with the same key),
// JSON in and out through the shared zod shapes, cross-site writes already refused by server/csrf.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { CreateWebhookSchema, INVALID_WEBHOOK_URL_CODE, NO_WEBHOOK_CODE, NOTIFICATIONS_API_PATH, WatchRequestSchema, WATCHES_PATH, WEBHOOKS_PATH } from '../../src/api/notification-schemas';
import { NOT_SIGNED_IN_CODE, NOT_SIGNED_IN_MESSAGE } from '../../src/config/session';
import { readBody, sendJsonError } from '../node-adapter';
import type { Sessions } from '../session/sessions';
import type { Notifications, Owner } from './notifications';

export function isNotifyPath(path: string): boolean {
  return path === NOTIFICATIONS_API_PATH || path.startsWith(`${NOTIFICATIONS_API_PATH}/`);
}

export interface NotifyRouteContext {
  sessions: Sessions;
  /** Undefined when the server has no store: every route says so (503). */
  notifications: Notifications | undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

async function readJson<S extends z.ZodMiniType>(req: IncomingMessage, schema: S): Promise<z.output<S> | string> {
  const text = (await readBody(req, 16 * 1024))?.toString('utf8') ?? '';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'The body must be JSON.';
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'The body has an unexpected shape.';
}

const WEBHOOK_ROUTE = new RegExp(`^${WEBHOOKS_PATH}/([^/]+)(?:/(test|resume|deliveries))?$`);

/** Answers a request under /notifications; the caller checked isNotifyPath. */
export async function serveNotifyRoute(req: IncomingMessage, res: ServerResponse, { sessions, notifications }: NotifyRouteContext): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const method = req.method ?? 'GET';
  const current = sessions.read(req);
  if (current.state !== 'open') {
    await readBody(req).catch(() => undefined);
    sendJsonError(res, 401, NOT_SIGNED_IN_MESSAGE, NOT_SIGNED_IN_CODE);
    return;
  }
  if (!notifications) {
    sendJsonError(res, 503, 'Notifications need the store (the archive’s database), which this server has not opened.');
    return;
  }
  const fingerprint = sessions.describe(current.session).fingerprint ?? '';
  const owner: Owner = { fingerprint, apiKey: current.session.key };
  const notFound = () => sendJsonError(res, 404, 'No such webhook.');

  if (path === WEBHOOKS_PATH && method === 'GET') return sendJson(res, 200, { webhooks: await notifications.list(owner) });
  if (path === WEBHOOKS_PATH && method === 'POST') {
    const input = await readJson(req, CreateWebhookSchema);
    if (typeof input === 'string') return sendJsonError(res, 400, input);
    const created = await notifications.create(owner, input);
    if (!created.ok) return sendJsonError(res, 400, created.problem, INVALID_WEBHOOK_URL_CODE);
    return sendJson(res, 201, { webhook: created.webhook, secret: created.secret });
  }
  if (path === WATCHES_PATH && method === 'GET') return sendJson(res, 200, { watches: await notifications.watches(owner) });
  if (path === WATCHES_PATH && method === 'POST') {
    const input = await readJson(req, WatchRequestSchema);
    if (typeof input === 'string') return sendJsonError(res, 400, input);
    const watch = await notifications.watch(owner, input.projectId, input.operationId);
    if (!watch) return sendJsonError(res, 409, 'Add a webhook on the Notifications page first: that is where the notice is sent.', NO_WEBHOOK_CODE);
    return sendJson(res, 201, watch);
  }
  const match = WEBHOOK_ROUTE.exec(path);
  const id = match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
  if (id === undefined) return sendJsonError(res, 404, 'Not found.');
  const action = match?.[2];
  if (action === undefined && method === 'DELETE') {
    if (!(await notifications.remove(owner, id))) return notFound();
    res.statusCode = 204;
    res.end();
    return;
  }
  if (action === 'test' && method === 'POST') {
    const result = await notifications.test(owner, id);
    return result ? sendJson(res, 200, result) : notFound();
  }
  if (action === 'resume' && method === 'POST') {
    if (!(await notifications.resume(owner, id))) return notFound();
    res.statusCode = 204;
    res.end();
    return;
  }
  if (action === 'deliveries' && method === 'GET') {
    const deliveries = await notifications.deliveries(owner, id);
    return deliveries ? sendJson(res, 200, { deliveries }) : notFound();
  }
  res.setHeader('Allow', action === undefined ? 'DELETE' : action === 'deliveries' ? 'GET' : 'POST');
  sendJsonError(res, 405, 'Method not allowed.');
}
