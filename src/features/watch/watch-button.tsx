import type { Operation } from '../../api/schemas';
import { humanizeAction } from '../../lib/format';
import { askToNotifyOnce } from './notify';
import { useIsWatched, useWatchStore } from './watch-context';

interface WatchButtonProps {
  operation: Operation;
  projectName?: string | undefined;
  branchName?: string | undefined;
  computeName?: string | undefined;
  /** A small pill for table rows; a regular button elsewhere. */
  compact?: boolean;
}

/** Adds any operation to the watch list (or takes it off again); named after the operation for lists of them. */
export function WatchButton({ operation, projectName, branchName, computeName, compact = false }: WatchButtonProps) {
  const store = useWatchStore();
  const watched = useIsWatched(store, operation.id);
  const toggle = () => {
    if (watched) {
      store.unwatch(operation.id);
      return;
    }
    askToNotifyOnce();
    store.watch({
      projectName,
      operations: [operation],
      branchNames: operation.branch_id && branchName ? new Map([[operation.branch_id, branchName]]) : undefined,
      computeNames: operation.endpoint_id && computeName ? new Map([[operation.endpoint_id, computeName]]) : undefined,
    });
  };
  return (
    <button
      type="button"
      className={compact ? 'watch-button watch-button--compact' : 'watch-button'}
      aria-pressed={watched}
      aria-label={`Watch ${humanizeAction(operation.action)}`}
      onClick={toggle}
    >
      Watch
    </button>
  );
}
