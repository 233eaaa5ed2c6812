// The console's own notification routes (src/api/notification-schemas.ts), beside /archive: signed-in only
// (the session's key fingerprint decides which webhooks a person sees: the ones made with the same key),
// JSON in and out through the shared zod shapes, cross-site writes already refused by server/http/csrf.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import {
  CANNOT_REDELIVER_CODE,
  CreateWebhookSchema,
  INVALID_WEBHOOK_URL_CODE,
  NO_WEBHOOK_CODE,
  NOTIFICATIONS_API_PATH,
  TOO_MANY_WATCHES_CODE,
  TOO_MANY_WEBHOOKS_CODE,
  WatchRequestSchema,
  WATCHES_PATH,
  WEBHOOKS_PATH,
} from '../../src/api/notification-schemas';
import { DeliveriesQuerySchema } from './deliveries-query';
import { sendError, sendJson } from '../http/answers';
import { MAX_FORM_BODY_BYTES, readBody } from '../http/body';
import { decodeSegment } from '../http/paths';
import { ALL_METHODS, type RouteConfig, type Method } from '../http/route';
import { sessionRoute, type Route, type SessionContext } from '../session/route-guard';
import type { Sessions } from '../session/sessions';
import { MAX_OPEN_WATCHES, type Notifications, type Owner } from './notifications';

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

const REDELIVERY_REFUSALS = {
  'too-old': 'Only events of the last 3 days can be redelivered.',
  'in-flight': 'This event is being sent right now: its answer shows in the log in a moment.',
  paused: 'The webhook is paused: Resume it, which sends this event again with the others that were not delivered.',
} as const;

type Answer = { status: number; body?: unknown } | { error: number; message: string; code?: string };

const NOT_FOUND: Answer = { error: 404, message: 'No such webhook.' };
const INVALID_ID: Answer = { error: 400, message: 'The webhook id is not a valid path segment.', code: 'invalid_id' };

function send(res: ServerResponse, answer: Answer): void {
  if ('error' in answer) sendError(res, answer.error, answer.message, answer.code);
  else if (answer.body === undefined) {
    res.statusCode = answer.status;
    res.end();
  } else sendJson(res, answer.status, answer.body);
}

/** What a route answers for the session's owner (the webhooks made with the same key). */
type NotifyHandler = (ctx: SessionContext, owner: Owner, notifications: Notifications) => Promise<Answer>;

/** A handler of one webhook: its id read from the address first. */
const ofWebhook =
  (work: (id: string, ctx: SessionContext, owner: Owner, notifications: Notifications) => Promise<Answer>): NotifyHandler =>
  (ctx, owner, notifications) => {
    const id = decodeSegment(ctx.params.webhookId ?? '');
    return id === undefined ? Promise.resolve(INVALID_ID) : work(id, ctx, owner, notifications);
  };

const list: NotifyHandler = async (_ctx, owner, notifications) => ({ status: 200, body: { webhooks: await notifications.list(owner) } });

const create: NotifyHandler = async ({ req }, owner, notifications) => {
  const input = await readJson(req, CreateWebhookSchema);
  if (typeof input === 'string') return { error: 400, message: input };
  const created = await notifications.create(owner, input);
  if (!created.ok)
    return created.reason === 'too-many'
      ? { error: 409, message: created.problem, code: TOO_MANY_WEBHOOKS_CODE }
      : { error: 400, message: created.problem, code: INVALID_WEBHOOK_URL_CODE };
  return { status: 201, body: { webhook: created.webhook, secret: created.secret } };
};

const watches: NotifyHandler = async (_ctx, owner, notifications) => ({ status: 200, body: { watches: await notifications.watches(owner) } });

const watch: NotifyHandler = async ({ req }, owner, notifications) => {
  const input = await readJson(req, WatchRequestSchema);
  if (typeof input === 'string') return { error: 400, message: input };
  const watched = await notifications.watch(owner, input.projectId, input.operationId);
  if (watched.ok) return { status: 201, body: watched.watch };
  if (watched.reason === 'no-webhook')
    return { error: 409, message: 'Add a webhook on the Notifications page first: that is where the notice is sent.', code: NO_WEBHOOK_CODE };
  return { error: 409, message: `At most ${MAX_OPEN_WATCHES} operations can be watched at once: one of them has to end first.`, code: TOO_MANY_WATCHES_CODE };
};

const redeliver: NotifyHandler = async ({ params }, owner, notifications) => {
  const id = decodeSegment(params.webhookId ?? '');
  const eventId = decodeSegment(params.eventId ?? '');
  if (id === undefined || eventId === undefined) return { error: 400, message: 'The webhook or event id is not a valid path segment.', code: 'invalid_id' };
  const outcome = await notifications.redeliver(owner, id, eventId);
  if (outcome === null) return NOT_FOUND;
  if (outcome === 'not-found') return { error: 404, message: 'This webhook has no such event in its log.' };
  if (outcome === 'queued') return { status: 202, body: { queued: true } };
  return { error: 409, message: REDELIVERY_REFUSALS[outcome], code: CANNOT_REDELIVER_CODE };
};

const remove = ofWebhook(async (id, _ctx, owner, notifications) => ((await notifications.remove(owner, id)) ? { status: 204 } : NOT_FOUND));
const test = ofWebhook(async (id, _ctx, owner, notifications) => {
  const result = await notifications.test(owner, id);
  return result ? { status: 200, body: result } : NOT_FOUND;
});
const resume = ofWebhook(async (id, _ctx, owner, notifications) => ((await notifications.resume(owner, id)) ? { status: 204 } : NOT_FOUND));
const deliveries = ofWebhook(async (id, { req }, owner, notifications) => {
  const query = DeliveriesQuerySchema.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://console.invalid').searchParams));
  if (!query.success) return { error: 400, message: query.error.issues[0]?.message ?? 'The query has an unexpected shape.' };
  const page = await notifications.deliveryPage(owner, id, query.data);
  return page ? { status: 200, body: page } : NOT_FOUND;
});

/** Anything else under /notifications: the console's own JSON 404, never the app page. */
const notFound: NotifyHandler = () => Promise.resolve({ error: 404, message: 'Not found.' });

/** The notification routes: signed in only, each person's webhooks those made with the same key. */
export function notifyRoutes({ sessions, notifications }: NotifyRouteContext): Route[] {
  // The role each asks in team sign-in (docs/team.md): webhooks are the admins', watches ("Notify me") the operators'.
  const declare = (
    method: Method | readonly Method[],
    url: string,
    handler: NotifyHandler,
    team: Pick<RouteConfig, 'role' | 'action' | 'may'> = { role: 'viewer' },
  ): Route =>
    sessionRoute({
      method,
      url,
      config: { needs: 'session', ...team },
      handler: async (ctx) => {
        const owner: Owner = { fingerprint: sessions.describe(ctx.session).fingerprint ?? '', apiKey: ctx.session.key };
        send(ctx.res, await handler(ctx, owner, notifications));
      },
    });
  return [
    declare('GET', WEBHOOKS_PATH, list, { role: 'admin', may: 'manage webhooks' }),
    declare('POST', WEBHOOKS_PATH, create, { role: 'admin', action: 'Create webhook', may: 'create webhooks' }),
    declare('GET', WATCHES_PATH, watches),
    declare('POST', WATCHES_PATH, watch, { role: 'operator', action: 'Notify me', may: 'ask to be notified' }),
    declare('DELETE', `${WEBHOOKS_PATH}/:webhookId`, remove, { role: 'admin', action: 'Delete webhook', may: 'delete webhooks' }),
    declare('POST', `${WEBHOOKS_PATH}/:webhookId/test`, test, { role: 'admin', action: 'Test webhook', may: 'test webhooks' }),
    declare('POST', `${WEBHOOKS_PATH}/:webhookId/resume`, resume, { role: 'admin', action: 'Resume webhook', may: 'resume webhooks' }),
    declare('GET', `${WEBHOOKS_PATH}/:webhookId/deliveries`, deliveries, { role: 'admin', may: 'manage webhooks' }),
    declare('POST', `${WEBHOOKS_PATH}/:webhookId/deliveries/:eventId/redeliver`, redeliver, {
      role: 'admin',
      action: 'Redeliver webhook event',
      may: 'redeliver webhook events',
    }),
    declare(ALL_METHODS, NOTIFICATIONS_API_PATH, notFound),
    declare(ALL_METHODS, `${NOTIFICATIONS_API_PATH}/*`, notFound),
  ];
}
