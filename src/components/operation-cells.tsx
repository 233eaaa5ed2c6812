import type { ReactNode } from 'react';
import { OperationDuration } from './operation-duration';
import { RelativeTime } from './relative-time';
import { StatusBadge } from './status-badge';

interface OperationCellsProps {
  operation: { status: string; created_at: string; total_duration_ms: number };
  now: number;
  /** Said beside the status, in its cell (the history's "Longer than usual"). */
  besideStatus?: ReactNode;
}

/** An operation row's Status (first on a phone's card), Duration and Date cells: the history's and the activity's alike. */
export function OperationCells({ operation, now, besideStatus }: OperationCellsProps) {
  return (
    <>
      <td data-label="Status" className="cell--first">
        <StatusBadge status={operation.status} />
        {besideStatus}
      </td>
      <td data-label="Duration">
        <OperationDuration operation={operation} />
      </td>
      <td data-label="Date">
        <RelativeTime iso={operation.created_at} now={now} />
      </td>
    </>
  );
}
