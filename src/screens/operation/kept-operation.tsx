import type { ArchivedOperation } from '../../api/archive-schemas';
import type { Branch, Endpoint } from '../../api/schemas';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';
import { OperationFields } from './operation-fields';

interface KeptOperationProps {
  operation: ArchivedOperation;
  projectId: string;
  projectName: string;
  branch: Branch | undefined;
  compute: Endpoint | undefined;
  now: number;
}

/** An operation the API no longer has (404), shown as the history archive last saw it; nothing polls it. */
export function KeptOperation({ operation, projectId, projectName, branch, compute, now }: KeptOperationProps) {
  return (
    <>
      <p className="callout">
        <span className="tag tag--plain">Kept by the archive</span> The API no longer has this operation
        {operation.keptSince ? (
          <>
            {' '}
            (it stopped listing it <RelativeTime iso={operation.keptSince} now={now} />)
          </>
        ) : null}
        : shown as the console’s history archive last saw it.
      </p>
      <dl className="detail-status">
        <dt className="detail-status__label">Status</dt>
        <dd data-testid="operation-status">
          <StatusBadge status={operation.status} />
        </dd>
      </dl>
      <OperationFields operation={operation} projectId={projectId} projectName={projectName} branch={branch} compute={compute} now={now} />
    </>
  );
}
