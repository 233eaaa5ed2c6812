import type { ReactNode } from 'react';

/** A table's column headers; `extra` adds cells after them (e.g. an actions column); `rowIndex` for windowed tables. */
export function TableHead({ columns, extra, rowIndex }: { columns: readonly string[]; extra?: ReactNode; rowIndex?: number }) {
  return (
    <thead>
      <tr aria-rowindex={rowIndex}>
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        {extra}
      </tr>
    </thead>
  );
}
