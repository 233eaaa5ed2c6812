import { http, HttpResponse } from 'msw';
import { CreateWebhookSchema, WatchRequestSchema, type Delivery, type Webhook } from '../../../src/api/notification-schemas';

/** The /notifications routes as the server answers them (server/notify/notify-routes.ts), in memory. */
export function notificationsStandIn() {
  const webhooks: Webhook[] = [];
  const deliveries = new Map<string, Delivery[]>();
  const watches: Array<{ projectId: string; operationId: string }> = [];
  let nextId = 1;
  const handlers = [
    http.get('*/notifications/webhooks', () => HttpResponse.json({ webhooks })),
    http.post('*/notifications/webhooks', async ({ request }) => {
      const input = CreateWebhookSchema.parse(await request.json());
      if (/127\.0\.0\.1|localhost/.test(input.url)) {
        return HttpResponse.json({ code: 'invalid_webhook_url', message: `127.0.0.1 is a loopback, private or reserved address (127.0.0.1); webhooks go only to public addresses.` }, { status: 400 });
      }
      const webhook: Webhook = { id: `wh_${nextId++}`, url: input.url, format: input.format, scope: input.scope, events: input.events, state: 'active', pausedReason: null, consecutiveFailures: 0, createdAt: '2026-11-22T12:00:00Z' };
      webhooks.push(webhook);
      return HttpResponse.json({ webhook, secret: 'whsec_shown-once' }, { status: 201 });
    }),
    http.post('*/notifications/webhooks/:id/test', () => HttpResponse.json({ delivered: true, status: 200, answer: 'thanks' })),
    http.post('*/notifications/webhooks/:id/resume', ({ params }) => {
      const hook = webhooks.find((w) => w.id === params.id);
      if (hook) Object.assign(hook, { state: 'active', pausedReason: null, consecutiveFailures: 0 });
      return new HttpResponse(null, { status: 204 });
    }),
    http.get('*/notifications/webhooks/:id/deliveries', ({ params }) => HttpResponse.json({ deliveries: deliveries.get(String(params.id)) ?? [] })),
    http.post('*/notifications/watches', async ({ request }) => {
      const input = WatchRequestSchema.parse(await request.json());
      if (webhooks.length === 0) return HttpResponse.json({ code: 'no_webhook', message: 'Add a webhook on the Notifications page first.' }, { status: 409 });
      watches.push(input);
      return HttpResponse.json({ ...input, createdAt: '2026-11-22T12:00:00Z', webhooks: webhooks.length }, { status: 201 });
    }),
  ];
  return { handlers, webhooks, deliveries, watches };
}
