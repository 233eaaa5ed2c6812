import type { QueryClient } from '@tanstack/react-query';
import { createPollSharing, type PollSharing } from '../lib/poll-sharing/poll-sharing';
import { followKeyNamespace } from '../features/session/key-namespace';
import { createNoticeStore, type NoticeStore } from './notices';
import { sharedQuerySchema } from './shared-queries';
import { createQueryClient } from './query-client';
import { createSessionStore, type SessionStore } from '../features/session/session-store';
import { connectWatchToQueries } from './watch/watch-queries';
import { bindWatchToSession } from './watch/watch-session';
import { createWatchStore, type WatchStore } from './watch/watch-store';

// The console's stores, made without React so main.tsx can make them (and start a deep link's
// requests in the query client) before the app's own code has arrived.

export interface AppState {
  queryClient: QueryClient;
  session: SessionStore;
  notices: NoticeStore;
  watch: WatchStore;
  pollSharing: PollSharing;
}

export function createAppState(retries = true): AppState {
  const notices: NoticeStore = createNoticeStore();
  // The query client and the session end together: signing out (or a 401) empties every cache.
  const holder: { signOutRejected: () => void } = { signOutRejected: () => undefined };
  const queryClient = createQueryClient({ onUnauthorized: () => holder.signOutRejected(), notices, retries });
  const watch = createWatchStore();
  const session = createSessionStore(() => {
    queryClient.clear();
    notices.clearAll();
    // The watch list belongs to the key: signing out forgets it, in memory and in storage.
    watch.signOut();
  });
  holder.signOutRejected = () => session.signOut('rejected');
  connectWatchToQueries(watch, queryClient);
  bindWatchToSession(watch, session);
  // One poller per query key across this key's tabs, named after the key (never the key; null without
  // Web Crypto, and each tab then polls for itself); signing out or changing key releases its locks.
  const pollSharing = createPollSharing({ queryClient, schemaFor: sharedQuerySchema });
  followKeyNamespace(session, 'poll', { onChange: () => pollSharing.close(), onKey: (namespace) => pollSharing.open(namespace) });
  return { queryClient, session, notices, watch, pollSharing };
}
