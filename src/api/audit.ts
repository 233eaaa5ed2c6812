import { infiniteQueryOptions } from '@tanstack/react-query';
import { AUDIT_FILTER_NAMES, AuditPageSchema, type AuditFilters } from '../model/audit';
import { AUDIT_PATH, consoleRoutes } from './audit-starters';
import { request } from './request';

// The console's own /audit routes (server/auth/audit-routes.ts, docs/team.md): the audit trail for admins (its screen,
// loaded on demand). Who started which operations is api/audit-starters.ts.

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
};
