import * as z from 'zod/mini';
import { ActivityFeedSchema } from './activity-feed-schema';
import { OperationSchema, OperationsPageSchema } from './schemas';

// What a query factory declares about its query in `meta`, for the layers that look across queries:
// poll sharing (which data other tabs may hand over, and the schema it must pass), the watch list
// (which operations a query holds) and the history refresh (which history a newest page refreshes).
// Plain JSON, so a cache rendered on the server carries it as it is.

export type QueryMeta =
  /** One operation; tabs share it. */
  | { data: 'operation'; projectId: string; operationId: string }
  /** A project's newest operations page, polled: tabs share it, and it refreshes the project's history. */
  | { data: 'newest-page'; projectId: string; limit: number }
  /** A project's loaded history, page by page. */
  | { data: 'history'; projectId: string; limit: number }
  /** The activity view's feed across projects: tabs share it. */
  | { data: 'activity-feed' };

const QueryMetaSchema = z.discriminatedUnion('data', [
  z.object({ data: z.literal('operation'), projectId: z.string(), operationId: z.string() }),
  z.object({ data: z.literal('newest-page'), projectId: z.string(), limit: z.number() }),
  z.object({ data: z.literal('history'), projectId: z.string(), limit: z.number() }),
  z.object({ data: z.literal('activity-feed') }),
]);

/** A query's declared meta, or null for a query that declares none. */
export function readMeta(meta: unknown): QueryMeta | null {
  const parsed = QueryMetaSchema.safeParse(meta);
  return parsed.success ? parsed.data : null;
}

/** The schema another tab's copy of the query's data must pass; null: the query is never shared. */
export function sharedSchemaOf(query: { meta?: unknown }): z.ZodMiniType | null {
  const meta = readMeta(query.meta);
  if (meta?.data === 'operation') return OperationSchema;
  if (meta?.data === 'newest-page') return OperationsPageSchema;
  if (meta?.data === 'activity-feed') return ActivityFeedSchema;
  return null;
}
