import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router-dom';
import { createNoticeStore, type NoticeStore } from './notices';
import { createQueryClient } from './query-client';
import { AppRoutes } from './routes';
import { createSessionStore, SessionContext, type SessionStore } from './session';

export interface AppState {
  queryClient: QueryClient;
  session: SessionStore;
  notices: NoticeStore;
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
  const session = createSessionStore(() => {
    queryClient.clear();
    notices.clearAll();
  });
  holder.signOutRejected = () => session.signOut('rejected');
  return { queryClient, session, notices };
}

export function App({ state, retries = true, onQueryClient }: AppProps) {
  const [{ queryClient, session, notices }] = useState(() => state ?? createAppState(retries));
  useEffect(() => onQueryClient?.(queryClient), [onQueryClient, queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      <SessionContext.Provider value={session}>
        <BrowserRouter>
          <AppRoutes notices={notices} />
        </BrowserRouter>
      </SessionContext.Provider>
    </QueryClientProvider>
  );
}
