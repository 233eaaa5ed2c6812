import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, type SyntheticEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import './audit.css';
import { describeError } from '../../api/api-error';
import { auditExportHref, auditQueries } from '../../api/audit';
import { DateTime } from '../../components/date-time';
import { ErrorCallout } from '../../components/error-callout';
import { useDocumentTitle } from '../../lib/use-document-title';
import { AUDIT_FILTER_NAMES, auditFiltersOf, type AuditRow } from '../../model/audit';

const FILTER_LABELS: Record<(typeof AUDIT_FILTER_NAMES)[number], string> = {
  person: 'Person',
  action: 'Action',
  project: 'Project',
  from: 'From',
  to: 'To',
};

function result(row: AuditRow): string {
  return row.status < 400 ? `Done (${row.status})` : row.status === 403 ? 'Refused (403)' : `Failed (${row.status})`;
}

/**
 * The audit trail (docs/team.md, "The audit trail"), for admins: who changed what through the console, and who
 * was refused, newest first. The filters live in the address (person, action, project, from, to), so a filtered
 * view is a link; "Show older" pages over the whole trail; the exports take the same filters.
 */
export function AuditScreen() {
  useDocumentTitle('Audit trail');
  const [search, setSearch] = useSearchParams();
  const filters = auditFiltersOf(search);
  const trail = useInfiniteQuery(auditQueries.trail(filters));
  const formId = useId();
  const rows = trail.data?.pages.flatMap((page) => page.rows) ?? [];

  const apply = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of AUDIT_FILTER_NAMES) {
      const value = form.get(name);
      if (typeof value === 'string' && value.trim() !== '') next.set(name, value.trim());
    }
    setSearch(next);
  };

  return (
    <section aria-labelledby={`${formId}-heading`}>
      <h1 id={`${formId}-heading`} tabIndex={-1}>
        Audit trail
      </h1>
      <p className="muted">Every change made through the console, and every refusal, with who did it. Kept as long as AUDIT_RETENTION_DAYS says.</p>
      <form className="audit-filters" aria-label="Filter the audit trail" onSubmit={apply} key={search.toString()}>
        {AUDIT_FILTER_NAMES.map((name) => (
          <label key={name}>
            {FILTER_LABELS[name]} <input name={name} type={name === 'from' || name === 'to' ? 'date' : 'text'} defaultValue={filters[name] ?? ''} />
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      <p>
        Export: <a href={auditExportHref(filters, 'csv')}>CSV</a> · <a href={auditExportHref(filters, 'ndjson')}>NDJSON</a>
      </p>
      {trail.error ? (
        <ErrorCallout title="The audit trail could not be read" message={describeError(trail.error).message} onRetry={() => void trail.refetch()} />
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Audit trail rows">
          <table className="data-table data-table--wrap audit-table">
            <caption className="visually-hidden">Audit trail, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Person</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {trail.isPending ? (
                <tr>
                  <td colSpan={5} role="status">
                    Loading…
                  </td>
                </tr>
              ) : rows.length === 0 ? (
                <tr>
                  <td colSpan={5}>Nothing recorded{search.toString() ? ' that matches these filters' : ' yet'}.</td>
                </tr>
              ) : (
                rows.map((row) => (
                  <tr key={row.id}>
                    <td data-label="When" className="audit-table__when">
                      <DateTime iso={row.at} />
                    </td>
                    <td data-label="Person">
                      {row.name}
                      {row.role && <span className="muted small"> ({row.role})</span>} <span className="audit-table__email muted small">{row.email}</span>
                    </td>
                    <td data-label="Action">{row.action}</td>
                    <td data-label="Target" className="audit-table__target">
                      {row.target}
                      {row.operationIds.length > 0 && <span className="muted small"> · operations {row.operationIds.join(', ')}</span>}
                    </td>
                    <td data-label="Result" className="audit-table__result">
                      {result(row)}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
      {trail.hasNextPage && (
        <button type="button" disabled={trail.isFetchingNextPage} onClick={() => void trail.fetchNextPage()}>
          {trail.isFetchingNextPage ? 'Loading older…' : 'Show older'}
        </button>
      )}
    </section>
  );
}
