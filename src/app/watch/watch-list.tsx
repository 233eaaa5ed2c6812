import { useEffect } from 'react';
import { isTerminal } from '../../lib/operation-status';
import { useNow } from '../../lib/use-now';
import { usePollInterval } from '../../lib/use-poll-interval';
import { notifySettled } from './notify';
import { useSettledAnnouncement } from './use-settled-announcement';
import { useTabBadge } from './use-tab-badge';
import { useWatchPolling } from './use-watch-polling';
import { isFinishedWithoutError, type WatchState, type WatchStore } from './watch-store';
import { describeSummary, summarizeWatch } from './watch-summary';
import { WatchedOperation } from './watched-operation';

/**
 * The watched operations, kept fresh while listed (loaded with the first watched operation, so the
 * entry bundle stays small): live statuses, the tab's badge, and news of each one that ends.
 */
export function WatchList({ store, state, headingId }: { store: WatchStore; state: WatchState; headingId: string }) {
  const [intervalMs] = usePollInterval();
  useWatchPolling(state, intervalMs);
  const summary = summarizeWatch(state);
  useTabBadge(summary);
  const announcement = useSettledAnnouncement(store);
  useEffect(() => store.onSettled(notifySettled), [store]);
  const anyRunning = state.groups.some((g) => g.entries.some((e) => !isTerminal(e.operation.status)));
  const now = useNow(1_000, anyRunning);
  const canClear = state.groups.some((g) => g.entries.some((e) => isFinishedWithoutError(e.operation)));

  return (
    <>
      <div className="watch-panel__summary">
        <p>{describeSummary(summary)}</p>
        {canClear && (
          <button type="button" className="watch-panel__clear" onClick={() => store.clearFinished()}>
            Clear finished
          </button>
        )}
      </div>
      <p className="visually-hidden" aria-live="polite" aria-atomic="true">
        {announcement}
      </p>
      <ul className="watch-groups" aria-labelledby={headingId}>
        {state.groups.map((group) => (
          <li key={group.id} className="watch-group">
            {group.title && (
              <h3 className="watch-group__title">
                {group.title}: {group.entries.length} {group.entries.length === 1 ? 'operation' : 'operations'}
              </h3>
            )}
            <ul className="watch-ops">
              {group.entries.map((entry) => (
                <WatchedOperation key={entry.operation.id} entry={entry} now={now} onDismiss={() => store.unwatch(entry.operation.id)} />
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </>
  );
}
