// The console's own notification routes (src/api/notification-schemas.ts), beside /archive: signed-in only
// (the session's key fingerprint decides which webhooks a person sees: the ones made with the same key),
// JSON in and out through the shared zod shapes, cross-site writes already refused by server/http/csrf.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import {
  CANNOT_REDELIVER_CODE,
  CreateWebhookSchema,
  DeliveriesQuerySchema,
  INVALID_WEBHOOK_URL_CODE,
  NO_WEBHOOK_CODE,
  NOTIFICATIONS_API_PATH,
  TOO_MANY_WATCHES_CODE,
  TOO_MANY_WEBHOOKS_CODE,
  WatchRequestSchema,
  WATCHES_PATH,
  WEBHOOKS_PATH,
} from '../../src/api/notification-schemas';
import { sendError, sendJson, sendMethodNotAllowed } from '../http/answers';
import { MAX_FORM_BODY_BYTES, readBody } from '../http/body';
import { decodeSegment, pathOf } from '../http/paths';
import { sendSessionClosed, type Sessions } from '../session/sessions';
import { MAX_OPEN_WATCHES, type Notifications, type Owner } from './notifications';

export function isNotifyPath(path: string): boolean {
  return path === NOTIFICATIONS_API_PATH || path.startsWith(`${NOTIFICATIONS_API_PATH}/`);
}

export interface NotifyRouteContext {
  sessions: Sessions;
  notifications: Notifications;
}

async function readJson<S extends z.ZodMiniType>(req: IncomingMessage, schema: S): Promise<z.output<S> | string> {
  const text = (await readBody(req, MAX_FORM_BODY_BYTES))?.toString('utf8') ?? '';
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
const REDELIVER_ROUTE = new RegExp(`^${WEBHOOKS_PATH}/([^/]+)/deliveries/([^/]+)/redeliver$`);

const REDELIVERY_REFUSALS = {
  'too-old': 'Only events of the last 3 days can be redelivered.',
  'in-flight': 'This event is being sent right now: its answer shows in the log in a moment.',
  paused: 'The webhook is paused: Resume it, which sends this event again with the others that were not delivered.',
} as const;

/** Answers a request under /notifications; the caller checked isNotifyPath. */
export async function serveNotifyRoute(req: IncomingMessage, res: ServerResponse, { sessions, notifications }: NotifyRouteContext): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  const path = pathOf(req);
  const method = req.method ?? 'GET';
  const current = sessions.read(req);
  if (current.state !== 'open') {
    await sendSessionClosed(req, res, sessions, current, MAX_FORM_BODY_BYTES);
    return;
  }
  const fingerprint = sessions.describe(current.session).fingerprint ?? '';
  const owner: Owner = { fingerprint, apiKey: current.session.key };
  const answer = await route(req, path, method, notifications, owner);
  if ('allowed' in answer) sendMethodNotAllowed(res, method, answer.allowed);
  else if ('error' in answer) sendError(res, answer.error, answer.message, answer.code);
  else if (answer.body === undefined) {
    res.statusCode = answer.status;
    res.end();
  } else sendJson(res, answer.status, answer.body);
}

type Answer = { status: number; body?: unknown } | { error: number; message: string; code?: string } | { allowed: string[] };

const NOT_FOUND: Answer = { error: 404, message: 'No such webhook.' };

async function route(req: IncomingMessage, path: string, method: string, notifications: Notifications, owner: Owner): Promise<Answer> {
  if (path === WEBHOOKS_PATH && method === 'GET') return { status: 200, body: { webhooks: await notifications.list(owner) } };
  if (path === WEBHOOKS_PATH && method === 'POST') {
    const input = await readJson(req, CreateWebhookSchema);
    if (typeof input === 'string') return { error: 400, message: input };
    const created = await notifications.create(owner, input);
    if (!created.ok)
      return created.reason === 'too-many'
        ? { error: 409, message: created.problem, code: TOO_MANY_WEBHOOKS_CODE }
        : { error: 400, message: created.problem, code: INVALID_WEBHOOK_URL_CODE };
    return { status: 201, body: { webhook: created.webhook, secret: created.secret } };
  }
  if (path === WATCHES_PATH && method === 'GET') return { status: 200, body: { watches: await notifications.watches(owner) } };
  if (path === WATCHES_PATH && method === 'POST') {
    const input = await readJson(req, WatchRequestSchema);
    if (typeof input === 'string') return { error: 400, message: input };
    const watched = await notifications.watch(owner, input.projectId, input.operationId);
    if (watched.ok) return { status: 201, body: watched.watch };
    if (watched.reason === 'no-webhook')
      return { error: 409, message: 'Add a webhook on the Notifications page first: that is where the notice is sent.', code: NO_WEBHOOK_CODE };
    return { error: 409, message: `At most ${MAX_OPEN_WATCHES} operations can be watched at once: one of them has to end first.`, code: TOO_MANY_WATCHES_CODE };
  }
  if (path === WEBHOOKS_PATH || path === WATCHES_PATH) return { allowed: ['GET', 'POST'] };
  const redelivery = REDELIVER_ROUTE.exec(path);
  if (redelivery?.[1] !== undefined && redelivery[2] !== undefined) {
    if (method !== 'POST') return { allowed: ['POST'] };
    const id = decodeSegment(redelivery[1]);
    const eventId = decodeSegment(redelivery[2]);
    if (id === undefined || eventId === undefined) return { error: 400, message: 'The webhook or event id is not a valid path segment.', code: 'invalid_id' };
    const outcome = await notifications.redeliver(owner, id, eventId);
    if (outcome === null) return NOT_FOUND;
    if (outcome === 'not-found') return { error: 404, message: 'This webhook has no such event in its log.' };
    if (outcome === 'queued') return { status: 202, body: { queued: true } };
    return { error: 409, message: REDELIVERY_REFUSALS[outcome], code: CANNOT_REDELIVER_CODE };
  }
  const match = WEBHOOK_ROUTE.exec(path);
  if (match?.[1] === undefined) return { error: 404, message: 'Not found.' };
  const id = decodeSegment(match[1]);
  if (id === undefined) return { error: 400, message: 'The webhook id is not a valid path segment.', code: 'invalid_id' };
  const action = match[2];
  if (action === undefined && method === 'DELETE') return (await notifications.remove(owner, id)) ? { status: 204 } : NOT_FOUND;
  if (action === 'test' && method === 'POST') {
    const result = await notifications.test(owner, id);
    return result ? { status: 200, body: result } : NOT_FOUND;
  }
  if (action === 'resume' && method === 'POST') return (await notifications.resume(owner, id)) ? { status: 204 } : NOT_FOUND;
  if (action === 'deliveries' && method === 'GET') {
    const query = DeliveriesQuerySchema.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://console.invalid').searchParams));
    if (!query.success) return { error: 400, message: query.error.issues[0]?.message ?? 'The query has an unexpected shape.' };
    const page = await notifications.deliveryPage(owner, id, query.data);
    return page ? { status: 200, body: page } : NOT_FOUND;
  }
  return { allowed: action === undefined ? ['DELETE'] : action === 'deliveries' ? ['GET'] : ['POST'] };
}
