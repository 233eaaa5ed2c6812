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

/** "Watch Create branch 7f3a1b2c…": the action and the start of the id, so the buttons of a list tell rows apart. */
export function watchButtonName(operation: Pick<Operation, 'id' | 'action'>): string {
  return `Watch ${humanizeAction(operation.action)} ${operation.id.slice(0, 8)}…`;
}

/** Adds an operation in flight to the watch list (or takes it off again); named after the operation for lists of them. */
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
      aria-label={watchButtonName(operation)}
      onClick={toggle}
    >
      Watch
    </button>
  );
}
