import { memo } from 'react';
import { Link } from 'react-router-dom';
import { LongName } from '../../components/long-name';
import { OperationCells } from '../../components/operation-cells';
import { TableHead } from '../../components/table-head';
import { paths } from '../../config/paths';
import { WatchButton } from '../../features/watch/watch-button';
import { humanizeAction } from '../../lib/format';
import type { ActivityRow } from './activity-rows';

export const ACTIVITY_COLUMNS = ['Operation', 'Project', 'Branch', 'Compute', 'Status', 'Duration', 'Date'] as const;

const Row = memo(function Row({ row, now }: { row: ActivityRow; now: number }) {
  const { operation, project } = row;
  return (
    <tr>
      <th scope="row" data-label="Operation">
        <span className="op-cell">
          <Link to={paths.operation(project.id, operation.id)}>{humanizeAction(operation.action)}</Link>
          <WatchButton compact operation={operation} projectName={project.name} />
        </span>
      </th>
      <td data-label="Project">
        <Link to={paths.project(project.id)}>
          <LongName name={project.name} />
        </Link>
        {project.orgName && <span className="muted activity__org">{project.orgName}</span>}
      </td>
      <td data-label="Branch">{operation.branch_id ? <code>{operation.branch_id}</code> : '—'}</td>
      <td data-label="Compute">{operation.endpoint_id ? <code>{operation.endpoint_id}</code> : '—'}</td>
      <OperationCells operation={operation} now={now} />
    </tr>
  );
});

/** Operations across projects, newest first: a real table, each row a link to its operation, each project name a link to it. */
export function ActivityTable({ rows, now }: { rows: readonly ActivityRow[]; now: number }) {
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption className="visually-hidden">Activity across projects, newest first</caption>
        <TableHead columns={ACTIVITY_COLUMNS} />
        <tbody>
          {rows.map((row) => (
            <Row key={row.operation.id} row={row} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
