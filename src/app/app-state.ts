import type { QueryClient } from '@tanstack/react-query';
import { connectHistoryRefresh } from '../api/operation-history';
import { sharedSchemaOf } from '../api/query-meta';
import { followKeyNamespace } from '../features/session/key-namespace';
import { createSessionStore, type SessionStore } from '../features/session/session-store';
import { connectWatchToQueries } from '../features/watch/watch-queries';
import { createWatchStore, type WatchStore } from '../features/watch/watch-store';
import { createPollSharing, type PollSharing } from '../lib/poll-sharing/poll-sharing';
import { createNoticeStore, type NoticeStore } from './notices';
import { createQueryClient } from './query-client';

// The console's stores, made without React so main.tsx can make them (and start a deep link's
// requests in the query client) before the app's own code has arrived; and the wiring between
// them (session ↔ query cache, watch list, poll sharing), so the features never import each other.

export interface AppState {
  queryClient: QueryClient;
  session: SessionStore;
  notices: NoticeStore;
  watch: WatchStore;
  pollSharing: PollSharing;
}

/** `retries`: the production retry policy (tests of single failures may turn it off). */
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
  // Every refresh of a project's newest page lands in its loaded history (the one store the screen renders).
  connectHistoryRefresh(queryClient);
  // Each key's watch list is stored under a name derived from the key; without Web Crypto it stays in memory.
  followKeyNamespace(session, 'watch', {
    onKey: (namespace) => {
      if (namespace !== null) watch.open(namespace);
    },
  });
  // One poller per query key across this key's tabs, named after the key (never the key; null without
  // Web Crypto, and each tab then polls for itself); signing out or changing key releases its locks.
  // Which queries tabs share, and the schema a shared copy must pass, each query factory declares.
  const pollSharing = createPollSharing({ queryClient, schemaFor: sharedSchemaOf });
  followKeyNamespace(session, 'poll', { onChange: () => pollSharing.close(), onKey: (namespace) => pollSharing.open(namespace) });
  return { queryClient, session, notices, watch, pollSharing };
}
