import type { QueryKey } from '@tanstack/react-query';
import type * as z from 'zod/mini';
import { operationQueries } from '../api/operations';
import { OperationSchema, OperationsPageSchema } from '../api/schemas';

const sameRoot = (queryKey: QueryKey, root: QueryKey) => root.every((part, i) => queryKey[i] === part);

/**
 * The polled queries whose results tabs share, with the schema another tab's copy must pass: a
 * project's newest operations page and one operation. Anything else is never shared. The console's
 * decision, injected into the generic poll-sharing layer (lib/poll-sharing) by app-state.ts.
 */
export function sharedQuerySchema(queryKey: QueryKey): z.ZodMiniType | null {
  if (sameRoot(queryKey, operationQueries.details()) && queryKey.length === 4) return OperationSchema;
  const part = queryKey[2];
  if (sameRoot(queryKey, operationQueries.lists()) && typeof part === 'object' && part !== null && 'view' in part && part.view === 'latest') {
    return OperationsPageSchema;
  }
  return null;
}
