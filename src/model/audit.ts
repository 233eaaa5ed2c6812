// The audit trail's rows and filters (docs/team.md, "The audit trail"), shared by the server, which writes and
// reads them, and the page, which keeps the filters in its address (person, action, project, from, to).
import * as z from 'zod/mini';
import { csvCell } from '../lib/csv-cell';
import { RoleSchema, type Person } from './roles';

export const AuditRowSchema = z.object({
  id: z.string(),
  /** ISO time. */
  at: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.nullable(RoleSchema),
  action: z.string(),
  projectId: z.nullable(z.string()),
  target: z.string(),
  status: z.number(),
  requestId: z.nullable(z.string()),
  operationIds: z.array(z.string()),
});
export type AuditRow = z.infer<typeof AuditRowSchema>;

export const AuditPageSchema = z.object({ rows: z.array(AuditRowSchema), next: z.nullable(z.string()) });
export type AuditPage = z.infer<typeof AuditPageSchema>;

export interface AuditFilters {
  person?: string;
  action?: string;
  project?: string;
  /** ISO date or time: rows at or after it. */
  from?: string;
  /** ISO date or time: rows before it (a date alone: up to that day's end). */
  to?: string;
}

export const AUDIT_FILTER_NAMES = ['person', 'action', 'project', 'from', 'to'] as const;

/** The filters an address carries (unknown or empty ones dropped; a time that does not parse dropped). */
export function auditFiltersOf(search: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  for (const name of AUDIT_FILTER_NAMES) {
    const value = search.get(name)?.trim();
    if (!value) continue;
    if ((name === 'from' || name === 'to') && Number.isNaN(Date.parse(value))) continue;
    filters[name] = value;
  }
  return filters;
}

/** A `to` given as a date alone reaches the end of that day. */
export function toBound(to: string): Date {
  const date = new Date(to);
  return /^\d{4}-\d{2}-\d{2}$/.test(to) ? new Date(date.getTime() + 24 * 60 * 60 * 1000) : date;
}

export const AUDIT_CSV_COLUMNS = ['When', 'Email', 'Person', 'Role', 'Action', 'Project', 'Target', 'Result', 'Request id', 'Operations'] as const;

export function auditCsvLine(row: AuditRow): string {
  return [
    row.at,
    row.email,
    row.name,
    row.role ?? '',
    row.action,
    row.projectId ?? '',
    row.target,
    String(row.status),
    row.requestId ?? '',
    row.operationIds.join(' '),
  ]
    .map(csvCell)
    .join(',')
    .concat('\r\n');
}

/** What a row records, as the server writes it (its time and id are the store's). */
export interface AuditEntry {
  person: Person;
  action: string;
  projectId?: string | undefined;
  target: string;
  status: number;
  requestId?: string | undefined;
  operationIds?: readonly string[];
}
