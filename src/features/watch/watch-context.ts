import { createContext, useContext, useSyncExternalStore } from 'react';
import type { WatchState, WatchStore } from './watch-store';

export const WatchContext = createContext<WatchStore | null>(null);

export function useWatchStore(): WatchStore {
  const store = useContext(WatchContext);
  if (!store) throw new Error('useWatchStore needs <WatchContext.Provider>');
  return store;
}

export function useWatchState(store: WatchStore): WatchState {
  return useSyncExternalStore(store.subscribe, store.getState, store.getState);
}

export function useIsWatched(store: WatchStore, operationId: string): boolean {
  return useSyncExternalStore(store.subscribe, () => store.isWatched(operationId), () => false);
}
