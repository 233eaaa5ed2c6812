import { humanizeAction } from '../lib/format';
import { blocksChanges, isKnownStatus, statusLabel } from '../model/operation-status';
import { LongName } from './long-name';

/** The fields of an operation the banner reads. */
export interface BannerOperation {
  id: string;
  action: string;
  status: string;
  updated_at?: string | undefined;
  retry_at?: string | undefined;
  branch_id?: string | undefined;
}

/**
 * Says what is running in a project and that changes may be refused (423) until it ends. Renders
 * nothing when the given operations (already fetched for the page) hold nothing in flight.
 */
export function BusyBanner({
  operations,
  branchNames,
  now,
}: {
  operations: readonly BannerOperation[];
  branchNames?: ReadonlyMap<string, string>;
  now: number;
}) {
  const running = operations.filter((op) => blocksChanges(op, now));
  if (running.length === 0) return null;
  // A status no one knows is not called running: it may be, so it is listed, but said as it is.
  const unknown = running.filter((op) => !isKnownStatus(op.status)).length;
  const known = running.length - unknown;
  const parts = [
    ...(known ? [known === 1 ? 'An operation is running' : `${known} operations are running`] : []),
    ...(unknown ? [`${unknown === 1 ? (known ? 'one is' : 'An operation is') : `${unknown} ${known ? 'are' : 'operations are'}`} in an unknown state`] : []),
  ];
  return (
    <div className="busy-banner">
      <p className="busy-banner__title">
        <span aria-hidden="true">↻ </span>
        {parts.join(' and ')} in this project
      </p>
      <ul className="busy-banner__list">
        {running.slice(0, 5).map((op) => {
          const branch = op.branch_id ? (branchNames?.get(op.branch_id) ?? op.branch_id) : undefined;
          return (
            <li key={op.id}>
              {humanizeAction(op.action)}
              {branch && (
                <span className="muted">
                  {' '}
                  on <LongName name={branch} focusable />
                </span>
              )}{' '}
              ({isKnownStatus(op.status) ? statusLabel(op.status) : `unknown status “${op.status}”`})
            </li>
          );
        })}
        {running.length > 5 && <li className="muted">and {running.length - 5} more</li>}
      </ul>
      <p className="muted">New changes (branches, computes) may be refused until these finish; the console retries them for you.</p>
    </div>
  );
}
