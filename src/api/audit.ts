import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { AUDIT_FILTER_NAMES, AuditPageSchema, type AuditFilters } from '../model/audit';
import { API_BASE, request, sameOriginTransport, type Transport } from './request';

// The console's own /audit routes (server/auth/audit-routes.ts, docs/team.md): the audit trail for admins, and
// who started which operations through the console ("Started by") for every signed-in person of a team.

const consoleRoutes: Transport = (path, init) => sameOriginTransport(path.startsWith(API_BASE) ? path.slice(API_BASE.length) : path, init);

export const AUDIT_PATH = '/audit';

/** The filters as an address's query (`?person=…&from=…`), empty ones left out. */
export function auditQuery(filters: AuditFilters, extra: Record<string, string> = {}): string {
  const search = new URLSearchParams();
  for (const name of AUDIT_FILTER_NAMES) {
    const value = filters[name];
    if (value) search.set(name, value);
  }
  for (const [name, value] of Object.entries(extra)) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const auditExportHref = (filters: AuditFilters, format: 'csv' | 'ndjson') => `${AUDIT_PATH}/export.${format}${auditQuery(filters)}`;

const StartersSchema = z.object({ starters: z.record(z.string(), z.object({ email: z.string(), name: z.string() })) });

export const auditQueries = {
  trail: (filters: AuditFilters) =>
    infiniteQueryOptions({
      queryKey: ['audit', 'trail', filters] as const,
      queryFn: ({ signal, pageParam }) =>
        request(`${AUDIT_PATH}${auditQuery(filters, pageParam === undefined ? {} : { after: pageParam })}`, AuditPageSchema, {
          signal,
          transport: consoleRoutes,
        }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (page) => page.next ?? undefined,
    }),
  /** Who started each of `ids` through the console; an operation started elsewhere is absent (never a guess). */
  starters: (ids: readonly string[]) =>
    queryOptions({
      queryKey: ['audit', 'starters', [...ids].sort().join(',')] as const,
      queryFn: async ({ signal }) =>
        (await request(`${AUDIT_PATH}/starters?ids=${ids.map(encodeURIComponent).join(',')}`, StartersSchema, { signal, transport: consoleRoutes })).starters,
      enabled: ids.length > 0,
      staleTime: 10_000,
    }),
};
