import { lazy, Suspense, useId, useState } from 'react';
import { useWatchState, useWatchStore } from './watch-context';
import { describeSummary, summarizeWatch } from './watch-summary';

const WatchList = lazy(async () => ({ default: (await import('./watch-list')).WatchList }));

/**
 * Always there while signed in, docked and never over the page (a sidebar on wide screens, a region
 * above the page's content on narrow ones: layout.css): every watched operation, live, until the
 * person clears it. It can be folded away; news unfolds it.
 */
export function WatchPanel() {
  const store = useWatchStore();
  const state = useWatchState(store);
  const headingId = useId();
  const listId = useId();
  // Folded while the newest group is the one that was on top when folding; a new request unfolds it.
  const [foldedAt, setFoldedAt] = useState<string | null>(null);
  const newest = state.groups[0]?.id ?? null;
  const expanded = newest === null || foldedAt !== newest;
  const summary = describeSummary(summarizeWatch(state));

  return (
    <aside className={expanded ? 'watch-panel' : 'watch-panel watch-panel--folded'} aria-label="Watched operations">
      <div className="watch-panel__head">
        <h2 id={headingId}>Watched operations</h2>
        <span className="watch-panel__summary">{summary || 'Nothing watched yet.'}</span>
        {newest !== null && (
          <button
            type="button"
            className="watch-panel__fold"
            aria-expanded={expanded}
            aria-controls={listId}
            onClick={() => setFoldedAt(expanded ? newest : null)}
          >
            {expanded ? 'Hide' : 'Show'}
          </button>
        )}
      </div>
      {newest !== null && (
        <Suspense fallback={<p className="watch-panel__hint">Loading…</p>}>
          <WatchList store={store} state={state} headingId={headingId} listId={listId} expanded={expanded} />
        </Suspense>
      )}
    </aside>
  );
}
