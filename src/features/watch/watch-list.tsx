import { useEffect, useId } from 'react';
import { durationOf, isTerminal } from '../../model/operation-status';
import { AddWebhookFirst, NotifyWhenEnds, useNoWebhook } from './notify-when-ends';
import { useNow } from '../../lib/use-now';
import { usePollInterval } from '../../api/use-poll-interval';
import { notifySettled } from './notify';
import { useSettledAnnouncement } from './use-settled-announcement';
import { useTabBadge } from './use-tab-badge';
import { useWatchPolling } from './use-watch-polling';
import { isFinishedWithoutError, type WatchGroup, type WatchState, type WatchStore } from './watch-store';
import { summarizeWatch } from './watch-summary';
import { WatchedOperation } from './watched-operation';

/**
 * The watched operations, kept fresh while listed (loaded with the first watched operation, so the
 * entry bundle stays small): live statuses, the tab's badge, and news of each one that ends.
 */
interface WatchListProps {
  store: WatchStore;
  state: WatchState;
  headingId: string;
  listId: string;
  /** Folded away: still polled and announced, just not shown. */
  expanded: boolean;
}

/**
 * Of a request that started several operations, the one whose end is the request's: its last one still unfinished
 * (a project's operations run one at a time, in the order the request's answer lists them: a restart's start after
 * its suspend). Undefined for a single watched operation, and once all have ended.
 */
function lastToEnd(group: WatchGroup) {
  if (group.entries.length < 2) return undefined;
  return [...group.entries].reverse().find((entry) => !isTerminal(entry.operation.status));
}

export function WatchList({ store, state, headingId, listId, expanded }: WatchListProps) {
  const [intervalMs] = usePollInterval();
  // Ticks while a duration counts; a minute's tick otherwise tells when a failure stops being retried.
  const counting = state.groups.some((g) => g.entries.some((e) => durationOf(e.operation).kind === 'live'));
  const now = useNow(counting ? 1_000 : 60_000);
  useWatchPolling(state, intervalMs, now);
  useTabBadge(summarizeWatch(state));
  const announcement = useSettledAnnouncement(store);
  useEffect(() => store.onSettled(notifySettled), [store]);
  const canClear = state.groups.some((g) => g.entries.some((e) => isFinishedWithoutError(e.operation)));
  // "Notify me when it ends" needs a webhook: with none, the tray says so once, above every entry that offers it.
  const noWebhookId = useId();
  const offersNotify = state.groups.some((g) => lastToEnd(g) !== undefined || (g.entries.length < 2 && g.entries.some((e) => !isTerminal(e.operation.status))));
  const noWebhook = useNoWebhook(offersNotify) && offersNotify;

  return (
    <>
      <p className="visually-hidden" aria-live="polite" aria-atomic="true">
        {announcement}
      </p>
      <div id={listId} className="watch-panel__body" hidden={!expanded}>
        {noWebhook && (
          <p id={noWebhookId} className="watch-panel__hint">
            <AddWebhookFirst />
          </p>
        )}
        <ul className="watch-groups" aria-labelledby={headingId}>
          {state.groups.map((group) => {
            const last = lastToEnd(group);
            return (
              <li key={group.id} className="watch-group">
                {group.title && (
                  <h3 className="watch-group__title" title={group.title}>
                    {group.title}: {group.entries.length} {group.entries.length === 1 ? 'operation' : 'operations'}
                  </h3>
                )}
                {/* Once for the request: a person means "tell me when the restart is done", not each half of it. */}
                {last && (
                  <NotifyWhenEnds
                    projectId={last.operation.project_id}
                    operationId={last.operation.id}
                    action={group.title ?? 'these operations'}
                    reasonId={noWebhookId}
                  />
                )}
                <ul className="watch-ops">
                  {group.entries.map((entry) => (
                    <WatchedOperation
                      key={entry.operation.id}
                      entry={entry}
                      now={now}
                      notify={group.entries.length < 2}
                      noWebhookId={noWebhookId}
                      onDismiss={() => store.unwatch(entry.operation.id)}
                    />
                  ))}
                </ul>
              </li>
            );
          })}
        </ul>
        {canClear && (
          <button type="button" className="watch-panel__clear" onClick={() => store.clearFinished()}>
            Clear finished
          </button>
        )}
      </div>
    </>
  );
}
