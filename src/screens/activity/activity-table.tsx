import { memo, useMemo } from 'react';
import { Link } from 'react-router-dom';
import { LongName } from '../../components/long-name';
import { OperationCells } from '../../components/operation-cells';
import { TableHead } from '../../components/table-head';
import { paths } from '../../config/paths';
import { StartedBy, useStarters } from '../../features/session/started-by';
import { WatchButton } from '../../features/watch/watch-button';
import { humanizeAction } from '../../lib/format';
import { isInFlight } from '../../model/operation-status';
import type { ActivityRow } from './activity-rows';
import { useCachedNames } from './use-cached-names';

export const ACTIVITY_COLUMNS = ['Operation', 'Project', 'Branch', 'Compute', 'Status', 'Duration', 'Date'] as const;

interface RowProps {
  row: ActivityRow;
  now: number;
  branchName: string | undefined;
  computeName: string | undefined;
  /** Who started it through the console (team sign-in), if anyone did. */
  startedBy: string | undefined;
}

/** A name where the console holds one, else the id; the id stays in the title either way. */
function NameOrId({ name, id }: { name: string | undefined; id: string | undefined }) {
  if (!id) return <>—</>;
  return name ? <span title={id}>{name}</span> : <code>{id}</code>;
}

const Row = memo(function Row({ row, now, branchName, computeName, startedBy }: RowProps) {
  const { operation, project } = row;
  return (
    <tr>
      <th scope="row" data-label="Operation">
        <span className="op-cell">
          <Link to={paths.operation(project.id, operation.id)}>{humanizeAction(operation.action)}</Link>
          {/* As in the history: only what is still in flight can be watched to its end. */}
          {isInFlight(operation, now) && (
            <WatchButton compact operation={operation} projectName={project.name} branchName={branchName} computeName={computeName} />
          )}
          <StartedBy name={startedBy} />
        </span>
      </th>
      <td data-label="Project">
        <Link to={paths.project(project.id)}>
          <LongName name={project.name} />
        </Link>
        {project.orgName && <span className="muted activity__org">{project.orgName}</span>}
      </td>
      <td data-label="Branch">
        <NameOrId name={branchName} id={operation.branch_id} />
      </td>
      <td data-label="Compute">
        <NameOrId name={computeName} id={operation.endpoint_id} />
      </td>
      <OperationCells operation={operation} now={now} />
    </tr>
  );
});

/** Operations across projects, newest first: a real table, each row a link to its operation, each project name a link to it. */
export function ActivityTable({ rows, now, archived }: { rows: readonly ActivityRow[]; now: number; archived: ReadonlySet<string> }) {
  const names = useCachedNames(
    useMemo(() => rows.map((row) => row.project.id), [rows]),
    archived,
  );
  const starters = useStarters(rows.map((row) => row.operation.id));
  return (
    <div className="table-wrap">
      <table className="data-table activity-table">
        <caption className="visually-hidden">Activity across projects, newest first</caption>
        <TableHead columns={ACTIVITY_COLUMNS} />
        <tbody>
          {rows.map((row) => (
            <Row
              key={row.operation.id}
              row={row}
              now={now}
              branchName={row.operation.branch_id ? names.branch(row.project.id, row.operation.branch_id) : undefined}
              computeName={row.operation.endpoint_id ? names.compute(row.project.id, row.operation.endpoint_id) : undefined}
              startedBy={starters[row.operation.id]?.name}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
