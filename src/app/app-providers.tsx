import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { SessionContext } from '../features/session/session-store';
import { WatchContext } from '../features/watch/watch-context';
import { InlineFaultsContext } from '../lib/inline-faults';
import { LiveStateContext, PollSharingContext } from '../lib/poll-sharing/use-shared-polls';
import { RenderTimeContext } from '../lib/render-time';
import type { AppState } from './app-state';

interface AppProvidersProps {
  state: AppState;
  /** When the server rendered the page being hydrated (or rendered now, on the server); null in the browser's own renders. */
  renderedAt?: number | null | undefined;
  children: ReactNode;
}

/** The console's stores, handed to every screen: the same tree in the browser and on the server, so hydration matches. */
export function AppProviders({ state, renderedAt = null, children }: AppProvidersProps) {
  return (
    <QueryClientProvider client={state.queryClient}>
      <SessionContext.Provider value={state.session}>
        <WatchContext.Provider value={state.watch}>
          <PollSharingContext.Provider value={state.pollSharing}>
            <LiveStateContext.Provider value={state.live}>
              <InlineFaultsContext.Provider value={state.notices}>
                <RenderTimeContext.Provider value={renderedAt}>{children}</RenderTimeContext.Provider>
              </InlineFaultsContext.Provider>
            </LiveStateContext.Provider>
          </PollSharingContext.Provider>
        </WatchContext.Provider>
      </SessionContext.Provider>
    </QueryClientProvider>
  );
}
