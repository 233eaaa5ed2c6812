import { useSyncExternalStore } from 'react';

// Non-blocking notices for background refreshes that failed while good data stays on screen.
export interface Notice {
  id: string;
  message: string;
  requestId?: string | undefined;
}

export interface NoticeStore {
  show: (notice: Notice) => void;
  clear: (id: string) => void;
  clearAll: () => void;
  list: () => readonly Notice[];
  subscribe: (listener: () => void) => () => void;
}

export function createNoticeStore(): NoticeStore {
  let notices: readonly Notice[] = [];
  const listeners = new Set<() => void>();
  const set = (next: readonly Notice[]) => {
    notices = next;
    listeners.forEach((l) => l());
  };
  return {
    show(notice) {
      set([...notices.filter((n) => n.id !== notice.id), notice]);
    },
    clear(id) {
      if (notices.some((n) => n.id === id)) set(notices.filter((n) => n.id !== id));
    },
    clearAll() {
      if (notices.length) set([]);
    },
    list: () => notices,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function useNotices(store: NoticeStore): readonly Notice[] {
  return useSyncExternalStore(store.subscribe, store.list, store.list);
}
