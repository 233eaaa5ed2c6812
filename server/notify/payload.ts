// What a webhook receives: the JSON event as docs/notifications.md states it, or a Slack incoming-webhook
// message (`text` plus blocks) with a link to the operation's page in the console (PUBLIC_URL).
import type { NotificationEventType, WebhookFormat } from '../../src/api/notification-schemas';
import { statusLabel } from '../../src/model/operation-status';
import { paths } from '../../src/config/paths';
import type { OperationObject } from '../store/deliveries';

export type { OperationObject } from '../store/deliveries';

export interface NotificationEvent {
  /** Stable per operation and transition: a retry, a restart or a second instance sends the same id. */
  id: string;
  type: NotificationEventType;
  /** ISO time the console saw the change (its collector's read), not the platform's time of it. */
  occurredAt: string;
  project: { id: string; name: string };
  operation: OperationObject;
  /** Team sign-in: who started the operation through the console (docs/team.md, "Started by"); absent otherwise, never a guess. */
  actor?: { email: string; name: string } | undefined;
}

export interface JsonEvent {
  id: string;
  type: NotificationEventType;
  /** When the console saw the change. */
  occurred_at: string;
  /** The platform's own time of the operation's last change (its `updated_at`), null when the API gave none. */
  updated_at: string | null;
  project: { id: string; name: string };
  operation: OperationObject;
  url: string;
  actor?: { email: string; name: string };
}

/** The console's page for the operation, absolute under `publicUrl`. */
export function operationUrl(publicUrl: URL, projectId: string, operationId: string): string {
  return new URL(paths.operation(projectId, operationId), publicUrl).toString();
}

export function jsonEvent(event: NotificationEvent, publicUrl: URL): JsonEvent {
  return {
    id: event.id,
    type: event.type,
    occurred_at: event.occurredAt,
    updated_at: typeof event.operation.updated_at === 'string' ? event.operation.updated_at : null,
    project: event.project,
    operation: event.operation,
    url: operationUrl(publicUrl, event.project.id, event.operation.id),
    ...(event.actor ? { actor: { email: event.actor.email, name: event.actor.name } } : {}),
  };
}

const HEADLINES: Record<NotificationEventType, string> = {
  'operation.failed': 'failed',
  'operation.longer_than_usual': 'is taking longer than usual',
  'operation.finished': 'finished',
};

/** Slack's mrkdwn reserves these three. */
function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function actionWords(action: string | undefined): string {
  const words = (action ?? 'operation').replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export interface SlackMessage {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

export function slackMessage(event: NotificationEvent, publicUrl: URL): SlackMessage {
  const url = operationUrl(publicUrl, event.project.id, event.operation.id);
  const what = `${actionWords(event.operation.action)} in ${event.project.name} ${HEADLINES[event.type]}`;
  const status = typeof event.operation.status === 'string' ? statusLabel(event.operation.status) : 'unknown';
  const error = typeof event.operation.error === 'string' && event.operation.error !== '' ? `\n>${escapeSlack(event.operation.error)}` : '';
  return {
    text: `${escapeSlack(what)} (${escapeSlack(status)}): ${url}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*<${url}|${escapeSlack(what)}>*\nStatus: ${escapeSlack(status)}${error}` } },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `Project \`${escapeSlack(event.project.id)}\` · operation \`${escapeSlack(event.operation.id)}\` · ${escapeSlack(event.occurredAt)}`,
          },
        ],
      },
    ],
  };
}

/** The body a webhook of `format` receives for `event`, as the exact bytes that are signed and sent. */
export function renderBody(format: WebhookFormat, event: NotificationEvent, publicUrl: URL): string {
  return JSON.stringify(format === 'slack' ? slackMessage(event, publicUrl) : jsonEvent(event, publicUrl));
}
