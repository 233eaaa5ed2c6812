import { createContext, useContext, useSyncExternalStore } from 'react';
import type { WatchState, WatchStore } from './watch-store';

export const WatchContext = createContext<WatchStore | null>(null);

export function useWatchStore(): WatchStore {
  const store = useContext(WatchContext);
  if (!store) throw new Error('useWatchStore needs <WatchContext.Provider>');
  return store;
}

// The list lives in this browser's storage: a page's server-rendered HTML never shows it, so hydration starts without it.
const SERVER_STATE: WatchState = { groups: [] };

export function useWatchState(store: WatchStore): WatchState {
  return useSyncExternalStore(store.subscribe, store.getState, () => SERVER_STATE);
}

export function useIsWatched(store: WatchStore, operationId: string): boolean {
  return useSyncExternalStore(
    store.subscribe,
    () => store.isWatched(operationId),
    () => false,
  );
}
