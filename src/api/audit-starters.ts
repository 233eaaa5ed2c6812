import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { API_BASE, request, sameOriginTransport, type Transport } from './request';

// Who started which operations through the console ("Started by", docs/team.md): the console's own
// /audit/starters, for every signed-in person of a team. Apart from the audit trail's screen (api/audit.ts), so
// the history's rows carry only this.

export const consoleRoutes: Transport = (path, init) => sameOriginTransport(path.startsWith(API_BASE) ? path.slice(API_BASE.length) : path, init);

export const AUDIT_PATH = '/audit';

const StartersSchema = z.object({ starters: z.record(z.string(), z.object({ email: z.string(), name: z.string() })) });

/** Who started each of `ids` through the console; an operation started elsewhere is absent (never a guess). */
export const startersQuery = (ids: readonly string[]) =>
  queryOptions({
    queryKey: ['audit', 'starters', [...ids].sort().join(',')] as const,
    queryFn: async ({ signal }) =>
      (await request(`${AUDIT_PATH}/starters?ids=${ids.map(encodeURIComponent).join(',')}`, StartersSchema, { signal, transport: consoleRoutes })).starters,
    enabled: ids.length > 0,
    staleTime: 10_000,
  });
