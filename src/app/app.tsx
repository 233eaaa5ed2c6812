import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router-dom';
import { createNoticeStore, type NoticeStore } from './notices';
import { createQueryClient } from './query-client';
import { AppRoutes, preloadRoute } from './routes';
import { createSessionStore, SessionContext } from './session';

export interface AppProps {
  /** Tests turn automatic retries off. */
  retries?: boolean;
  /** Tests inspect the caches (e.g. that no secret is kept in them). */
  onQueryClient?: (client: QueryClient) => void;
}

function createAppState(retries: boolean) {
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

export function App({ retries = true, onQueryClient }: AppProps) {
  const [{ queryClient, session, notices }] = useState(() => createAppState(retries));
  useEffect(() => onQueryClient?.(queryClient), [onQueryClient, queryClient]);

  // Start the deep-linked screen's code and data together, instead of one after the other.
  useEffect(() => {
    if (session.getState().apiKey) preloadRoute(window.location.pathname, queryClient);
  }, [queryClient, session]);

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
