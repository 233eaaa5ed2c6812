import { memo, useDeferredValue } from 'react';
import { Link } from 'react-router-dom';
import { isKeptByArchive } from '../../api/archive';
import type { Operation } from '../../api/schemas';
import { LongName } from '../../components/long-name';
import { LongerThanUsual } from '../../components/longer-than-usual';
import { OperationCells } from '../../components/operation-cells';
import { TableHead } from '../../components/table-head';
import { paths } from '../../config/paths';
import { StartedBy, useStarters } from '../../features/session/started-by';
import { WatchButton } from '../../features/watch/watch-button';
import { humanizeAction } from '../../lib/format';
import { durationOf, isInFlight } from '../../model/operation-status';
import type { UsualDuration } from '../../model/usual-durations';
import { useWindowedRows } from '../../lib/use-windowed-rows';
import type { OperationsView } from './operations-view';

export const OPERATION_COLUMNS = ['Operation', 'Branch', 'Compute', 'Status', 'Duration', 'Date'] as const;

/** Rows painted in the first frame: more than a tall screen shows; the rest follow in a deferred render. */
const FIRST_PAINT_ROWS = 25;

/** A row's height in Chromium at the default font size (styles.css), until one is measured. */
const ESTIMATED_ROW_HEIGHT = 37;

const operationId = (operation: Operation) => operation.id;

interface OperationsTableProps extends OperationsView {
  now: number;
  /** Usual durations per action: an operation in flight well past its usual one says so in its status cell. */
  usual?: ReadonlyMap<string, UsualDuration> | undefined;
}

const OperationRow = memo(function OperationRow({
  index,
  projectId,
  projectName,
  operation,
  branchName,
  computeName,
  now,
  usual,
  startedBy,
}: {
  /** Who started it through the console (team sign-in), if anyone did. */
  startedBy: string | undefined;
  /** Position among all loaded rows, from 0 (the header is row 1 for assistive technology). */
  index: number;
  projectId: string;
  projectName: string | undefined;
  operation: Operation;
  branchName: string | undefined;
  computeName: string | undefined;
  now: number;
  /** Only for rows in flight, so the others keep their memo when the figures move. */
  usual: ReadonlyMap<string, UsualDuration> | undefined;
}) {
  return (
    <tr data-index={index} aria-rowindex={index + 2}>
      <th scope="row" data-label="Operation">
        <span className="op-cell">
          <Link to={paths.operation(projectId, operation.id)}>{humanizeAction(operation.action)}</Link>
          {isInFlight(operation, now) && (
            <WatchButton compact operation={operation} projectName={projectName} branchName={branchName} computeName={computeName} />
          )}
          {isKeptByArchive(operation) && <span className="tag tag--plain">Kept by the archive</span>}
          <StartedBy name={startedBy} />
        </span>
      </th>
      <td data-label="Branch">{operation.branch_id ? <LongName name={branchName ?? operation.branch_id} /> : '—'}</td>
      <td data-label="Compute">{operation.endpoint_id ? <LongName name={computeName ?? operation.endpoint_id} /> : '—'}</td>
      <OperationCells operation={operation} now={now} besideStatus={usual && <LongerThanUsual operation={operation} usual={usual} />} />
    </tr>
  );
});

/**
 * The project's operations, newest first: a real table, each row a link to its detail. A long history
 * renders only the rows near the viewport (gap rows hold the rest of its height); `aria-rowcount` and
 * each row's `aria-rowindex` tell assistive technology where it is among all loaded rows.
 */
export function OperationsTable({ projectId, projectName, operations, branchNames, computeNames, now, usual }: OperationsTableProps) {
  // The first screenful appears at once; the rest (and the rows of each "Load more") render without blocking.
  const shown = useDeferredValue(operations, operations.slice(0, FIRST_PAINT_ROWS));
  const { slots, bodyRef, onFocus, onBlur } = useWindowedRows({
    rows: shown,
    rowKey: operationId,
    estimatedRowHeight: ESTIMATED_ROW_HEIGHT,
  });
  const starters = useStarters(shown.map(operationId));
  return (
    <div className="table-wrap">
      <table className="data-table" aria-rowcount={shown.length + 1}>
        <caption className="visually-hidden">Operations, newest first</caption>
        <TableHead columns={OPERATION_COLUMNS} rowIndex={1} />
        <tbody ref={bodyRef} onFocus={onFocus} onBlur={onBlur}>
          {slots.map((slot) => {
            if (slot.kind === 'gap') {
              return (
                <tr key={slot.key} className="row-gap" aria-hidden="true">
                  <td colSpan={OPERATION_COLUMNS.length} style={{ height: slot.height }} />
                </tr>
              );
            }
            const op = shown[slot.index];
            if (!op) return null;
            return (
              <OperationRow
                key={op.id}
                index={slot.index}
                projectId={projectId}
                projectName={projectName}
                operation={op}
                branchName={op.branch_id ? branchNames.get(op.branch_id) : undefined}
                computeName={op.endpoint_id ? computeNames.get(op.endpoint_id) : undefined}
                now={now}
                usual={usual && durationOf(op).kind === 'live' ? usual : undefined}
                startedBy={starters[op.id]?.name}
              />
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
