import { lazy, Suspense, useId } from 'react';
import { useWatchState, useWatchStore } from './watch-context';

const WatchList = lazy(async () => ({ default: (await import('./watch-list')).WatchList }));

/** Always beside the page while signed in: every watched operation, live, until the person clears it. */
export function WatchPanel() {
  const store = useWatchStore();
  const state = useWatchState(store);
  const headingId = useId();
  return (
    <aside className="watch-panel" aria-label="Watched operations">
      <h2 id={headingId}>Watched operations</h2>
      {state.groups.length === 0 ? (
        <p className="watch-panel__hint">
          Nothing watched yet. Operations you start here, or mark with “Watch”, are followed live until you clear them.
        </p>
      ) : (
        <Suspense fallback={<p className="watch-panel__hint">Loading…</p>}>
          <WatchList store={store} state={state} headingId={headingId} />
        </Suspense>
      )}
    </aside>
  );
}
