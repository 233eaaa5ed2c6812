import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router-dom';
import { createNoticeStore, type NoticeStore } from './notices';
import { bindPollSharingToSession } from './poll-sharing/poll-session';
import { createPollSharing, type PollSharing } from './poll-sharing/poll-sharing';
import { sharedQuerySchema } from './poll-sharing/shared-queries';
import { PollSharingContext } from './poll-sharing/use-shared-polls';
import { createQueryClient } from './query-client';
import { AppRoutes } from './routes';
import { createSessionStore, SessionContext, type SessionStore } from './session';
import { WatchContext } from './watch/watch-context';
import { connectWatchToQueries } from './watch/watch-queries';
import { bindWatchToSession } from './watch/watch-session';
import { createWatchStore, type WatchStore } from './watch/watch-store';

export interface AppState {
  queryClient: QueryClient;
  session: SessionStore;
  notices: NoticeStore;
  watch: WatchStore;
  pollSharing: PollSharing;
}

export interface AppProps {
  /** Made before the first render by mountApp, so a deep link's data can start loading first. */
  state?: AppState;
  /** Tests turn automatic retries off. */
  retries?: boolean;
  /** Tests inspect the caches (e.g. that no secret is kept in them). */
  onQueryClient?: (client: QueryClient) => void;
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
  // One poller per query key across this key's tabs; signing out releases its locks and closes its channel.
  const pollSharing = createPollSharing({ queryClient, schemaFor: sharedQuerySchema });
  bindPollSharingToSession(pollSharing, session);
  return { queryClient, session, notices, watch, pollSharing };
}

export function App({ state, retries = true, onQueryClient }: AppProps) {
  const [{ queryClient, session, notices, watch, pollSharing }] = useState(() => state ?? createAppState(retries));
  useEffect(() => onQueryClient?.(queryClient), [onQueryClient, queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      <SessionContext.Provider value={session}>
        <WatchContext.Provider value={watch}>
          <PollSharingContext.Provider value={pollSharing}>
            <BrowserRouter>
              <AppRoutes notices={notices} />
            </BrowserRouter>
          </PollSharingContext.Provider>
        </WatchContext.Provider>
      </SessionContext.Provider>
    </QueryClientProvider>
  );
}
