import type { QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router-dom';
import type { PageSession } from '../api/page-data';
import { AppProviders } from './app-providers';
import { createAppState, type AppState } from './app-state';
import { AppRoutes } from './routes';

export interface AppProps {
  /** Made before the first render by mountApp, so a deep link's data can start loading first. */
  state?: AppState;
  /** Hydrating a server-rendered page: when the server rendered it (the data block says). */
  renderedAt?: number | undefined;
  /** Tests of single failures may turn automatic retries off. */
  retries?: boolean;
  /** Without `state`: the session the app starts with (tests; the page's comes from its data block). */
  session?: PageSession;
  /** Tests inspect the caches (e.g. that no secret is kept in them). */
  onQueryClient?: (client: QueryClient) => void;
}

export function App({ state, renderedAt, retries = true, session: initialSession, onQueryClient }: AppProps) {
  const [appState] = useState(() => state ?? createAppState({ retries, session: initialSession }));
  const { queryClient } = appState;
  useEffect(() => onQueryClient?.(queryClient), [onQueryClient, queryClient]);

  return (
    <AppProviders state={appState} renderedAt={renderedAt}>
      <BrowserRouter>
        <AppRoutes notices={appState.notices} signInProblem={appState.signInProblem} />
      </BrowserRouter>
    </AppProviders>
  );
}
