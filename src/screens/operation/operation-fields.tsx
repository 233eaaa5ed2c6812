import { Link } from 'react-router-dom';
import type { Branch, Endpoint, Operation } from '../../api/schemas';
import { CopyButton } from '../../components/copy-button';
import { DateTime } from '../../components/date-time';
import { OperationDuration } from '../../components/operation-duration';
import { RelativeTime } from '../../components/relative-time';
import { paths } from '../../config/paths';
import { humanizeAction } from '../../lib/format';

interface OperationFieldsProps {
  operation: Operation;
  projectId: string;
  projectName: string;
  branch: Branch | undefined;
  compute: Endpoint | undefined;
  now: number;
}

/** Every field of the operation, humanised; its project, branch and compute link back to the project. */
export function OperationFields({ operation, projectId, projectName, branch, compute, now }: OperationFieldsProps) {
  return (
    <dl className="fields">
      <dt>Operation</dt>
      <dd>
        {humanizeAction(operation.action)} <code className="muted">{operation.action}</code>
      </dd>
      <dt>Project</dt>
      <dd>
        <Link to={paths.project(projectId)}>{projectName}</Link> <CopyButton label="Copy project id" text={projectId} />
      </dd>
      <dt>Branch</dt>
      <dd>
        {operation.branch_id ? <Link to={paths.project(projectId)}>{branch?.name ?? operation.branch_id}</Link> : '—'}
        {branch && <code className="muted"> {branch.id}</code>}
        {operation.branch_id && (
          <>
            {' '}
            <CopyButton label="Copy branch id" text={operation.branch_id} />
          </>
        )}
      </dd>
      <dt>Compute</dt>
      <dd>
        {operation.endpoint_id ? <Link to={paths.project(projectId)}>{compute?.name ?? operation.endpoint_id}</Link> : '—'}
        {compute?.name && <code className="muted"> {compute.id}</code>}
        {operation.endpoint_id && (
          <>
            {' '}
            <CopyButton label="Copy compute id" text={operation.endpoint_id} />
          </>
        )}
      </dd>
      <dt>Duration</dt>
      <dd>
        <OperationDuration operation={operation} />
      </dd>
      <dt>Created</dt>
      <dd>
        <DateTime iso={operation.created_at} /> (<RelativeTime iso={operation.created_at} now={now} />)
      </dd>
      <dt>Last status change</dt>
      <dd>
        <DateTime iso={operation.updated_at} /> (<RelativeTime iso={operation.updated_at} now={now} />)
      </dd>
      <dt>Failures</dt>
      <dd>{operation.failures_count}</dd>
      {operation.retry_at && (
        <>
          {/* A retry time already past is history, not a promise: "Retry at" only while it is ahead. */}
          <dt>{Date.parse(operation.retry_at) > now ? 'Retry at' : 'Last retry was due'}</dt>
          <dd>
            <DateTime iso={operation.retry_at} />
          </dd>
        </>
      )}
      {operation.error && (
        <>
          <dt>Error</dt>
          <dd>{operation.error}</dd>
        </>
      )}
      <dt>Operation id</dt>
      <dd>
        <code>{operation.id}</code> <CopyButton label="Copy operation id" text={operation.id} />
      </dd>
    </dl>
  );
}
