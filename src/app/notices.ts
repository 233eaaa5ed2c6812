import { useSyncExternalStore } from 'react';
import { retryCountdown, type Wait } from '../lib/format';
import type { InlineFaults } from '../lib/inline-faults';

/** Non-blocking notices for reads that fail while the page goes on: what failed, and when the next try is. */
export interface Notice {
  /** The failing query's hash: one notice per query. */
  id: string;
  /** What the failure left on screen: nothing yet, the last data received, or the rows loaded before "Load more". */
  situation: 'load' | 'refresh' | 'more';
  /** The failure in a few specific words ("The server is busy (503)."). */
  problem: string;
  /** When the console tries again by itself; null when it does not. */
  nextTry: Wait | null;
  requestId?: string | undefined;
}

/** The notice in words at `now`: its countdown counts down to the next try. */
export function noticeText({ situation, problem, nextTry }: Notice, now: number): string {
  const wait = nextTry === null ? null : retryCountdown(nextTry, now);
  if (situation === 'more') return `Could not load more: ${problem} Keeping what is shown${wait ? `; ${wait}` : ''}.`;
  if (situation === 'refresh') return `Could not refresh: ${problem} Showing the last data received${wait ? `; ${wait}` : ''}.`;
  return `Could not load: ${problem}${nextTry ? ` ${retryCountdown(nextTry, now, true)}.` : ''}`;
}

export interface NoticeStore extends InlineFaults {
  show: (notice: Notice) => void;
  clear: (id: string) => void;
  clearAll: () => void;
  /** The notices to show: those of failures no screen shows inline. */
  list: () => readonly Notice[];
  subscribe: (listener: () => void) => () => void;
}

export function createNoticeStore(): NoticeStore {
  let notices: readonly Notice[] = [];
  let shown: readonly Notice[] = [];
  const inline = new Map<string, number>();
  const listeners = new Set<() => void>();
  const publish = () => {
    shown = notices.filter((n) => !inline.has(n.id));
    listeners.forEach((l) => l());
  };
  const set = (next: readonly Notice[]) => {
    notices = next;
    publish();
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
    claim(id) {
      inline.set(id, (inline.get(id) ?? 0) + 1);
      publish();
      return () => {
        const count = (inline.get(id) ?? 1) - 1;
        if (count > 0) inline.set(id, count);
        else inline.delete(id);
        publish();
      };
    },
    list: () => shown,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// The server renders no notices: hydration starts from none, whatever failed in the browser meanwhile.
const SERVER_NOTICES: readonly Notice[] = [];

export function useNotices(store: NoticeStore): readonly Notice[] {
  return useSyncExternalStore(store.subscribe, store.list, () => SERVER_NOTICES);
}
