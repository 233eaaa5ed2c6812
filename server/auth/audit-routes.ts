// The audit trail's routes (docs/team.md, "The audit trail"): `GET /audit` a page of it (JSON, newest first,
// `after` the previous page's `next`), `GET /audit/export.csv` and `/audit/export.ndjson` the whole filtered trail,
// all for admins; `GET /audit/starters?ids=` who started each of those operations through the console, for
// every signed-in person ("Started by"). Filters in the address: person, action, project, from, to.
import { AUDIT_CSV_COLUMNS, auditCsvLine, auditFiltersOf } from '../../src/model/audit';
import { csvCell } from '../../src/lib/csv-cell';
import { sendJson } from '../http/answers';
import { READ_METHODS } from '../http/route';
import { sessionRoute, type Route } from '../session/route-guard';
import type { Queryable } from '../store/db';
import { readAudit, startersOf } from '../store/audit-trail';

export const AUDIT_API_PATH = '/audit';
export const AUDIT_STARTERS_PATH = '/audit/starters';
/** Pages read for an export: the whole trail, a page at a time. */
const EXPORT_PAGE_ROWS = 1_000;
const MAX_STARTER_IDS = 200;

export function auditRoutes(db: Queryable): Route[] {
  const search = (url: string | undefined) => new URL(url ?? '/', 'http://console.invalid').searchParams;
  const exportAs = (format: 'csv' | 'ndjson'): Route =>
    sessionRoute({
      method: READ_METHODS,
      url: `${AUDIT_API_PATH}/export.${format}`,
      config: { needs: 'session', role: 'admin', action: 'Read the audit trail', may: 'read the audit trail' },
      handler: async ({ req, res }) => {
        const filters = auditFiltersOf(search(req.url));
        const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
        res.statusCode = 200;
        res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="audit-${stamp}.${format}"`);
        if (req.method === 'HEAD') {
          res.end();
          return;
        }
        if (format === 'csv') res.write(`${AUDIT_CSV_COLUMNS.map(csvCell).join(',')}\r\n`);
        let after: string | undefined;
        do {
          const page = await readAudit(db, filters, after, EXPORT_PAGE_ROWS);
          if (page.rows.length) res.write(page.rows.map((row) => (format === 'csv' ? auditCsvLine(row) : `${JSON.stringify(row)}\n`)).join(''));
          after = page.next ?? undefined;
        } while (after !== undefined && !res.destroyed);
        res.end();
      },
    });
  return [
    sessionRoute({
      method: READ_METHODS,
      url: AUDIT_API_PATH,
      config: { needs: 'session', role: 'admin', action: 'Read the audit trail', may: 'read the audit trail' },
      handler: async ({ req, res }) => {
        const query = search(req.url);
        sendJson(res, 200, await readAudit(db, auditFiltersOf(query), query.get('after') ?? undefined));
      },
    }),
    exportAs('csv'),
    exportAs('ndjson'),
    sessionRoute({
      method: READ_METHODS,
      url: AUDIT_STARTERS_PATH,
      config: { needs: 'session', role: 'viewer' },
      handler: async ({ req, res }) => {
        const ids = (search(req.url).get('ids') ?? '').split(',').filter(Boolean).slice(0, MAX_STARTER_IDS);
        const starters = await startersOf(db, ids);
        sendJson(res, 200, { starters: Object.fromEntries(starters) });
      },
    }),
  ];
}
