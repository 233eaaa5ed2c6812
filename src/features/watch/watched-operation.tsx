import { Link } from 'react-router-dom';
import { StatusBadge } from '../../components/status-badge';
import { paths } from '../../config/paths';
import { humanizeAction } from '../../lib/format';
import { isTerminal, statusTone } from '../../model/operation-status';
import { NotifyWhenEnds } from './notify-when-ends';
import type { WatchEntry } from './watch-store';
import { watchTiming } from './watch-timing';

/**
 * One watched operation: what, where, its live status and time, and a way to its detail page. `notify`: it offers
 * "Notify me when it ends" itself (one of several a request started offers it once, for the request: watch-list.tsx).
 */
export function WatchedOperation({
  entry,
  now,
  onDismiss,
  notify = true,
  noWebhookId,
}: {
  entry: WatchEntry;
  now: number;
  onDismiss: () => void;
  notify?: boolean;
  /** The tray's note saying a webhook is needed first (NotifyWhenEnds). */
  noWebhookId: string;
}) {
  const op = entry.operation;
  const action = humanizeAction(op.action);
  const failed = statusTone(op.status) === 'danger';
  const where = [entry.projectName ?? op.project_id, entry.branchName ?? op.branch_id, entry.computeName ?? op.endpoint_id].filter(Boolean);
  return (
    <li className={failed ? 'watch-op watch-op--failed' : 'watch-op'}>
      <div className="watch-op__line">
        <Link to={paths.operation(op.project_id, op.id)} className="watch-op__action">
          {action}
        </Link>
        <StatusBadge status={op.status} />
      </div>
      <p className="watch-op__where" title={where.join(' · ')}>
        {where.join(' · ')}
      </p>
      <p className="watch-op__time">{watchTiming(op, now, entry.seenAt)}</p>
      {failed && op.error && <p className="watch-op__error">{op.error}</p>}
      {notify && !isTerminal(op.status) && <NotifyWhenEnds projectId={op.project_id} operationId={op.id} action={action} reasonId={noWebhookId} />}
      {failed && (
        <button type="button" className="watch-op__dismiss" aria-label={`Dismiss ${action}`} onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </li>
  );
}
