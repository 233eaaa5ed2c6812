import { memo, useDeferredValue } from 'react';
import { Link } from 'react-router-dom';
import type { Operation } from '../../api/schemas';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';
import { humanizeAction } from '../../lib/format';
import { paths } from '../../app/paths';
import { WatchButton } from '../../app/watch/watch-button';
import { OperationDuration } from './operation-duration';
import { TableHead } from '../../components/table-head';

export const OPERATION_COLUMNS = ['Operation', 'Branch', 'Compute', 'Status', 'Duration', 'Date'] as const;

/** Rows painted in the first frame: more than a tall screen shows; the rest follow in a deferred render. */
const FIRST_PAINT_ROWS = 25;

interface OperationsTableProps {
  projectId: string;
  projectName: string | undefined;
  operations: readonly Operation[];
  branchNames: ReadonlyMap<string, string>;
  computeNames: ReadonlyMap<string, string>;
  now: number;
}

const OperationRow = memo(function OperationRow({
  projectId,
  projectName,
  operation,
  branchName,
  computeName,
  now,
}: {
  projectId: string;
  projectName: string | undefined;
  operation: Operation;
  branchName: string | undefined;
  computeName: string | undefined;
  now: number;
}) {
  return (
    <tr>
      <th scope="row">
        <span className="op-cell">
          <Link to={paths.operation(projectId, operation.id)}>{humanizeAction(operation.action)}</Link>
          <WatchButton compact operation={operation} projectName={projectName} branchName={branchName} computeName={computeName} />
        </span>
      </th>
      <td>{operation.branch_id ? (branchName ?? operation.branch_id) : '—'}</td>
      <td>{operation.endpoint_id ? (computeName ?? operation.endpoint_id) : '—'}</td>
      <td>
        <StatusBadge status={operation.status} />
      </td>
      <td>
        <OperationDuration operation={operation} />
      </td>
      <td>
        <RelativeTime iso={operation.created_at} now={now} />
      </td>
    </tr>
  );
});

/** The project's operations, newest first: a real table, each row a link to its detail. */
export function OperationsTable({ projectId, projectName, operations, branchNames, computeNames, now }: OperationsTableProps) {
  // The first screenful appears at once; the rest (and the rows of each "Load more") render without blocking.
  const shown = useDeferredValue(operations, operations.slice(0, FIRST_PAINT_ROWS));
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption className="visually-hidden">Operations, newest first</caption>
        <TableHead columns={OPERATION_COLUMNS} />
        <tbody>
          {shown.map((op) => (
            <OperationRow
              key={op.id}
              projectId={projectId}
              projectName={projectName}
              operation={op}
              branchName={op.branch_id ? branchNames.get(op.branch_id) : undefined}
              computeName={op.endpoint_id ? computeNames.get(op.endpoint_id) : undefined}
              now={now}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
