import * as z from 'zod/mini';
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

// Schemas of shared queries whose code loads on demand (the activity feed), given by that code as it
// loads: the first screen's bundle does not carry them, and a tab only takes a copy of a query it holds.
const loadedSchemas = new Map<QueryMeta['data'], z.ZodMiniType>();

/** Declares the schema another tab's copy of a lazily loaded query must pass. */
export function shareWithSchema(data: 'activity-feed', schema: z.ZodMiniType): void {
  loadedSchemas.set(data, schema);
}

/** The schema another tab's copy of the query's data must pass; null: the query is never shared. */
export function sharedSchemaOf(query: { meta?: unknown }): z.ZodMiniType | null {
  const meta = readMeta(query.meta);
  if (meta?.data === 'operation') return OperationSchema;
  if (meta?.data === 'newest-page') return OperationsPageSchema;
  return meta ? (loadedSchemas.get(meta.data) ?? null) : null;
}
