import type { ReactNode } from 'react';

/** A table's column headers; `extra` adds cells after them (e.g. an actions column). */
export function TableHead({ columns, extra }: { columns: readonly string[]; extra?: ReactNode }) {
  return (
    <thead>
      <tr>
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
