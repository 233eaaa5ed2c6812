import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router-dom';
import type { PageSession } from '../api/page-data';
import { SessionContext } from '../features/session/session-store';
import { WatchContext } from '../features/watch/watch-context';
import { InlineFaultsContext } from '../lib/inline-faults';
import { PollSharingContext } from '../lib/poll-sharing/use-shared-polls';
import { createAppState, type AppState } from './app-state';
import { AppRoutes } from './routes';

export interface AppProps {
  /** Made before the first render by mountApp, so a deep link's data can start loading first. */
  state?: AppState;
  /** Tests of single failures may turn automatic retries off. */
  retries?: boolean;
  /** Without `state`: the session the app starts with (tests; the page's comes from its data block). */
  session?: PageSession;
  /** Tests inspect the caches (e.g. that no secret is kept in them). */
  onQueryClient?: (client: QueryClient) => void;
}

export function App({ state, retries = true, session: initialSession, onQueryClient }: AppProps) {
  const [{ queryClient, session, notices, watch, pollSharing, signInProblem }] = useState(() => state ?? createAppState({ retries, session: initialSession }));
  useEffect(() => onQueryClient?.(queryClient), [onQueryClient, queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      <SessionContext.Provider value={session}>
        <WatchContext.Provider value={watch}>
          <PollSharingContext.Provider value={pollSharing}>
            <InlineFaultsContext.Provider value={notices}>
              <BrowserRouter>
                <AppRoutes notices={notices} signInProblem={signInProblem} />
              </BrowserRouter>
            </InlineFaultsContext.Provider>
          </PollSharingContext.Provider>
        </WatchContext.Provider>
      </SessionContext.Provider>
    </QueryClientProvider>
  );
}
