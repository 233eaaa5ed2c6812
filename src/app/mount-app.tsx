import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createAppState } from './app';
import type { EarlyStart } from './early-start';
import { preloadScreen } from './routes';

/** Longest a first render waits for the deep-linked screen's code before showing a loading state. */
const PRELOAD_WAIT_MS = 2_000;

export function mountApp(container: HTMLElement, early: EarlyStart | null): void {
  const state = createAppState();
  const render = () =>
    createRoot(container).render(
      <StrictMode>
        <App state={state} />
      </StrictMode>,
    );
  if (!early || !state.session.getState().apiKey) {
    render();
    return;
  }
  // Signed in on a deep link: its requests are under way; render the screen whole once its code is in.
  early.handOver(state.queryClient);
  const wait = new Promise((resolve) => setTimeout(resolve, PRELOAD_WAIT_MS));
  void Promise.race([preloadScreen(window.location.pathname), wait]).finally(render);
}
