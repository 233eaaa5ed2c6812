import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import {
  CreatedWebhookSchema,
  deliveriesPagePath,
  DeliveriesSchema,
  OperationWatchSchema,
  redeliverPath,
  TestResultSchema,
  webhookPath,
  webhookResumePath,
  WebhooksSchema,
  webhookTestPath,
  WATCHES_PATH,
  WEBHOOKS_PATH,
  type CreateWebhook,
  type Deliveries,
  type Delivery,
  type WatchRequest,
} from './notification-schemas';
import { API_BASE, request, sameOriginTransport, type Transport } from './request';
import { deliveryLogPollDelay, type AwaitedDelivery } from './retry-policy';
import * as z from 'zod/mini';

// The console's own /notifications routes (server/notify/), read and changed through request() like the API:
// the same errors, parsing and timeout. Only the page asks them (never the server's render), so the transport
// is the page's own origin, without the /api/v2 prefix request() puts before the platform's paths.

const consoleRoutes: Transport = (path, init) => sameOriginTransport(path.startsWith(API_BASE) ? path.slice(API_BASE.length) : path, init);

const NoContentSchema = z.unknown();

export const notificationQueries = {
  all: () => ['notifications'] as const,
  webhooks: () =>
    queryOptions({
      queryKey: [...notificationQueries.all(), 'webhooks'] as const,
      queryFn: ({ signal }) => request(WEBHOOKS_PATH, WebhooksSchema, { signal, transport: consoleRoutes }),
    }),
  /**
   * A webhook's log, a page of 100 at a time, newest first; "Show older deliveries" adds the next. Each read
   * reads every page shown again, each from the fresh page before it, so a delivery that moved down a page
   * is shown once. `awaited`: an event just sent again, followed closely until its attempt shows (retry-policy.ts).
   */
  deliveries: (webhookId: string, awaited?: AwaitedDelivery) =>
    infiniteQueryOptions({
      queryKey: [...notificationQueries.all(), 'deliveries', webhookId] as const,
      queryFn: ({ signal, pageParam }) => request(deliveriesPagePath(webhookId, pageParam), DeliveriesSchema, { signal, transport: consoleRoutes }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (page) => page.nextCursor ?? undefined,
      refetchInterval: (query) =>
        deliveryLogPollDelay(
          { data: query.state.data && { deliveries: loggedDeliveries(query.state.data) }, dataUpdatedAt: query.state.dataUpdatedAt },
          awaited,
        ),
    }),
};

/** The deliveries of every page read, newest first, each event once. */
export function loggedDeliveries(log: Pick<InfiniteData<Deliveries>, 'pages'>): Delivery[] {
  const seen = new Set<string>();
  return log.pages.flatMap((page) => page.deliveries).filter((delivery) => !seen.has(delivery.eventId) && seen.add(delivery.eventId));
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateWebhook) => request(WEBHOOKS_PATH, CreatedWebhookSchema, { method: 'POST', body: input, transport: consoleRoutes }),
    onSuccess: () => client.invalidateQueries({ queryKey: notificationQueries.webhooks().queryKey }),
  });
}

export function useDeleteWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(webhookPath(id), NoContentSchema, { method: 'DELETE', transport: consoleRoutes }),
    onSuccess: () => client.invalidateQueries({ queryKey: notificationQueries.webhooks().queryKey }),
  });
}

export function useTestWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(webhookTestPath(id), TestResultSchema, { method: 'POST', transport: consoleRoutes }),
    onSettled: (_result, _error, id) => client.invalidateQueries({ queryKey: notificationQueries.deliveries(id).queryKey }),
  });
}

export function useResumeWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(webhookResumePath(id), NoContentSchema, { method: 'POST', transport: consoleRoutes }),
    onSuccess: () => client.invalidateQueries({ queryKey: notificationQueries.all() }),
  });
}

/** "Redeliver": one event of a webhook's log sent again now; the log is read again to show it on its way. */
export function useRedeliver(webhookId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (eventId: string) => request(redeliverPath(webhookId, eventId), NoContentSchema, { method: 'POST', transport: consoleRoutes }),
    onSettled: () => client.invalidateQueries({ queryKey: notificationQueries.deliveries(webhookId).queryKey }),
  });
}

/** "Notify me when it ends": an operation-scoped rule kept by the server, sent to every webhook of this key. */
export function useNotifyWhenEnds() {
  return useMutation({
    mutationFn: (watch: WatchRequest) => request(WATCHES_PATH, OperationWatchSchema, { method: 'POST', body: watch, transport: consoleRoutes }),
  });
}
