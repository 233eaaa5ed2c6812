import { dehydrate, hydrate, type QueryClient } from '@tanstack/react-query';
import * as z from 'zod/mini';

// A server-rendered page hands its query cache to the browser in the page's data block: React Query's
// dehydrated state of the queries its screen read (successful ones only; the server never sends a
// failure or a fetch in flight). The browser hydrates it before React hydrates the HTML, so the screen
// renders from the very data the server rendered, and nothing fresh is fetched again. Each query's data
// was parsed by its fetcher's schema on the server; here the envelope is checked.

const DehydratedQuerySchema = z.object({
  queryHash: z.string(),
  queryKey: z.array(z.unknown()),
  state: z.object({
    data: z.unknown(),
    dataUpdateCount: z.number(),
    dataUpdatedAt: z.number(),
    error: z.null(),
    errorUpdateCount: z.number(),
    errorUpdatedAt: z.number(),
    fetchFailureCount: z.number(),
    fetchFailureReason: z.null(),
    fetchMeta: z.null(),
    isInvalidated: z.boolean(),
    status: z.literal('success'),
    fetchStatus: z.literal('idle'),
  }),
  dehydratedAt: z.number(),
  meta: z.optional(z.record(z.string(), z.unknown())),
  queryType: z.optional(z.literal('infinite')),
});
type DehydratedQuery = z.infer<typeof DehydratedQuerySchema>;

export const RenderedQueriesSchema = z.object({
  mutations: z.array(z.never()),
  queries: z.array(DehydratedQuerySchema),
});
export type RenderedQueries = z.infer<typeof RenderedQueriesSchema>;

/** The server's side: what `client` holds for the page, in the shape the browser accepts (checked here, so a page never carries a cache its browser would refuse). */
export function dehydrateForPage(client: QueryClient): RenderedQueries {
  return RenderedQueriesSchema.parse(
    dehydrate(client, { shouldDehydrateQuery: (query) => query.state.status === 'success' && query.state.fetchStatus === 'idle' }),
  );
}

function isPaged(data: unknown): data is { pages: unknown[]; pageParams: unknown[] } {
  return typeof data === 'object' && data !== null && 'pages' in data && 'pageParams' in data && Array.isArray(data.pageParams);
}

/** JSON has no `undefined`: an infinite query's first page param (undefined) arrives as null, and must not be sent as `cursor=null`. */
function restorePageParams(query: DehydratedQuery): DehydratedQuery {
  const { data } = query.state;
  if (query.queryType !== 'infinite' || !isPaged(data)) return query;
  return { ...query, state: { ...query.state, data: { ...data, pageParams: data.pageParams.map((param) => param ?? undefined) } } };
}

/** The browser's side: puts a server-rendered page's queries into `client`, before anything renders. */
export function hydrateFromPage(client: QueryClient, rendered: RenderedQueries): void {
  hydrate(client, { mutations: [], queries: rendered.queries.map(restorePageParams) });
}
