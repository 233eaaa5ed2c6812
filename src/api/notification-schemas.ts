import * as z from 'zod/mini';

// The notifications' wire (docs/notifications.md): what the console's server answers about webhooks, their rules and
// deliveries (server/notify/notify-routes.ts) and what the page sends and reads (api/notifications.ts,
// screens/notifications, the watch tray). Written once, imported by both sides. The console's own paths,
// beside /archive: never under /api/v2.

export const NOTIFICATIONS_API_PATH = '/notifications';
export const WEBHOOKS_PATH = `${NOTIFICATIONS_API_PATH}/webhooks`;
/** `/notifications/webhooks/:id` (DELETE). */
export const webhookPath = (id: string) => `${WEBHOOKS_PATH}/${encodeURIComponent(id)}`;
/** POST: delivers a sample event now and answers with what the receiver said. */
export const webhookTestPath = (id: string) => `${webhookPath(id)}/test`;
/** POST: un-pauses a paused webhook; what waited is tried again at once. */
export const webhookResumePath = (id: string) => `${webhookPath(id)}/resume`;
/** GET: the webhook's delivery log, newest first. */
export const webhookDeliveriesPath = (id: string) => `${webhookPath(id)}/deliveries`;
/** One page of the log: the newest, or the one after a page's `nextCursor`. */
export const deliveriesPagePath = (id: string, cursor: string | undefined) =>
  cursor === undefined ? webhookDeliveriesPath(id) : `${webhookDeliveriesPath(id)}?cursor=${encodeURIComponent(cursor)}`;
/** POST: sends one event of the log again now (events of the last 3 days). */
export const redeliverPath = (id: string, eventId: string) => `${webhookDeliveriesPath(id)}/${encodeURIComponent(eventId)}/redeliver`;
/** The tray's "Notify me when it ends": GET lists, POST adds one operation. */
export const WATCHES_PATH = `${NOTIFICATIONS_API_PATH}/watches`;

export const NotificationEventTypeSchema = z.enum(['operation.failed', 'operation.longer_than_usual', 'operation.finished']);
export type NotificationEventType = z.infer<typeof NotificationEventTypeSchema>;

/** Each event as the form names its checkbox. */
export const EVENT_LABELS: Record<NotificationEventType, string> = {
  'operation.failed': 'Failed',
  'operation.longer_than_usual': 'Longer than usual',
  'operation.finished': 'Finished',
};
export const EVENT_TYPES = NotificationEventTypeSchema.options;

export const WebhookFormatSchema = z.enum(['json', 'slack']);
export type WebhookFormat = z.infer<typeof WebhookFormatSchema>;

/** Which projects a webhook hears about: every archived project (the default), one organization's, or one project. */
export const WebhookScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('organization'), orgId: z.string().check(z.minLength(1)) }),
  z.object({ kind: z.literal('project'), projectId: z.string().check(z.minLength(1)) }),
]);
export type WebhookScope = z.infer<typeof WebhookScopeSchema>;

export const CreateWebhookSchema = z.object({
  url: z.string().check(z.minLength(1), z.maxLength(2048)),
  format: WebhookFormatSchema,
  scope: WebhookScopeSchema,
  events: z.array(NotificationEventTypeSchema).check(z.minLength(1, 'Choose at least one event.')),
});
export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;

export const WebhookStateSchema = z.enum(['active', 'paused']);

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  format: WebhookFormatSchema,
  scope: WebhookScopeSchema,
  events: z.array(z.string()),
  state: WebhookStateSchema,
  /** Why it is paused, in words (failing for days, a 410 from the receiver, the key that made it was revoked). */
  pausedReason: z.nullable(z.string()),
  consecutiveFailures: z.number(),
  /** When its deliveries started failing (the first failure after its last success); null while they succeed. */
  failingSince: z.nullable(z.string()),
  lastSuccessAt: z.nullable(z.string()),
  createdAt: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const WebhooksSchema = z.object({ webhooks: z.array(WebhookSchema) });
/** The answer to a create: the webhook, and its signing secret, which is never shown again. */
export const CreatedWebhookSchema = z.object({ webhook: WebhookSchema, secret: z.string() });
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;

/** What "Send test" heard: the receiver's status (null: no answer) and the start of its body, or why nothing was sent. */
export const TestResultSchema = z.object({ delivered: z.boolean(), status: z.nullable(z.number()), answer: z.string() });
export type TestResult = z.infer<typeof TestResultSchema>;

export const DeliveryStateSchema = z.enum(['pending', 'delivered', 'failed']);
export const DeliverySchema = z.object({
  eventId: z.string(),
  type: z.string(),
  projectId: z.string(),
  /** The project's name as the owner's key read it when the event was sent; null before. */
  projectName: z.nullable(z.string()),
  operationId: z.string(),
  /** The operation's action (`create_branch`); null when the API gave none. */
  action: z.nullable(z.string()),
  state: DeliveryStateSchema,
  attempts: z.number(),
  /** The last answer's HTTP status; null before the first attempt or when nothing answered. */
  lastStatus: z.nullable(z.number()),
  /** The last answer in words: the start of its body, or why there was none (timeout, refused). */
  lastAnswer: z.nullable(z.string()),
  lastAttemptAt: z.nullable(z.string()),
  /** How long the receiver took to answer the last attempt. */
  lastDurationMs: z.nullable(z.number()),
  nextAttemptAt: z.nullable(z.string()),
  /** When the console saw the change. */
  occurredAt: z.string(),
  createdAt: z.string(),
  /** The exact body last sent; null before the first attempt. */
  payload: z.nullable(z.string()),
  /** Whether "Redeliver" may send it again now (an event of the last 3 days, not being sent this moment). */
  redeliverable: z.boolean(),
});
export type Delivery = z.infer<typeof DeliverySchema>;
/** A page of the log, newest first; `nextCursor` (absent on the last page) asks for the page after it. */
export const DeliveriesSchema = z.object({ deliveries: z.array(DeliverySchema), nextCursor: z.optional(z.nullable(z.string())) });
export type Deliveries = z.infer<typeof DeliveriesSchema>;
/** The most deliveries one page holds, and how many when `limit` is not given. */
export const MAX_DELIVERIES_PAGE = 100;
/** GET's query (`limit`, `cursor`) is read by the server alone: server/notify/deliveries-query.ts. */

/** The longest project or operation id a watch takes (the platform's are far shorter). */
export const MAX_WATCH_ID_LENGTH = 256;
const watchId = z.string().check(z.minLength(1), z.maxLength(MAX_WATCH_ID_LENGTH, `An id is at most ${MAX_WATCH_ID_LENGTH} characters.`));
export const WatchRequestSchema = z.object({ projectId: watchId, operationId: watchId });
export type WatchRequest = z.infer<typeof WatchRequestSchema>;
export const OperationWatchSchema = z.object({ projectId: z.string(), operationId: z.string(), createdAt: z.string(), webhooks: z.number() });
export type OperationWatch = z.infer<typeof OperationWatchSchema>;
export const OperationWatchesSchema = z.object({ watches: z.array(OperationWatchSchema) });

/** The `code` of a refused webhook URL (the form shows the message beside the field). */
export const INVALID_WEBHOOK_URL_CODE = 'invalid_webhook_url';
/** The `code` of "Notify me when it ends" without any webhook to send it to. */
export const NO_WEBHOOK_CODE = 'no_webhook';
/** The `code` of "Add webhook" past the webhooks a key may have. */
export const TOO_MANY_WEBHOOKS_CODE = 'too_many_webhooks';
/** The `code` of "Notify me when it ends" past the open watches a key may have. */
export const TOO_MANY_WATCHES_CODE = 'too_many_watches';
/** The `code` of a "Redeliver" that cannot be done now (too old, being sent, the webhook paused). */
export const CANNOT_REDELIVER_CODE = 'cannot_redeliver';
