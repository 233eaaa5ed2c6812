import { QueryClient, type QueryClientConfig } from '@tanstack/react-query';
import { sameOriginTransport, type Call, type Transport } from './request';

// How a query client's queries reach the API is held by the client itself: in the browser, the page's
// same-origin fetch; on the server, one client per rendered request, with that request's transport (its
// session's key added by the server). Nothing about one request lives in a module.

export class TransportQueryClient extends QueryClient {
  readonly transport: Transport;

  constructor({ transport, ...config }: QueryClientConfig & { transport: Transport }) {
    super(config);
    this.transport = transport;
  }
}

/** The transport of `client`'s queries: its own, or the page's same-origin fetch. */
export function transportOf(client: QueryClient): Transport {
  return client instanceof TransportQueryClient ? client.transport : sameOriginTransport;
}

/** A query function's context as request() wants it: the query's abort signal and its client's transport. */
export function callOf({ signal, client }: { signal: AbortSignal; client: QueryClient }): Call {
  return { signal, transport: transportOf(client) };
}

/** Whether `client` is the page's own (in the browser), not a server render's, which reads only what its transport answers. */
export function isPageClient(client: QueryClient): boolean {
  return !(client instanceof TransportQueryClient);
}
