import { TableHead } from './table-head';

/** Placeholder rows of the real table's size, so the page does not jump when data arrives. */
export function TableSkeleton({ columns, rows = 8, label }: { columns: readonly string[]; rows?: number; label: string }) {
  return (
    <div role="status" aria-live="polite" className="table-wrap">
      <span className="visually-hidden">{label}</span>
      <table className="data-table data-table--skeleton" aria-hidden="true">
        <TableHead columns={columns} />
        <tbody>
          {Array.from({ length: rows }, (_, r) => (
            <tr key={r}>
              {columns.map((c) => (
                <td key={c} data-label={c}>
                  <span className="skeleton-bar" />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
