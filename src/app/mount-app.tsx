import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createAppState } from './app';
import { preloadRoute } from './routes';

/** Longest a first render waits for the deep-linked screen's code before showing a loading state. */
const PRELOAD_WAIT_MS = 2_000;

export function mountApp(container: HTMLElement): void {
  const state = createAppState();
  const render = () =>
    createRoot(container).render(
      <StrictMode>
        <App state={state} />
      </StrictMode>,
    );
  if (!state.session.getState().apiKey) {
    render();
    return;
  }
  // Signed in on a deep link: fetch the screen's data and code side by side, then render it whole.
  const wait = new Promise((resolve) => setTimeout(resolve, PRELOAD_WAIT_MS));
  void Promise.race([preloadRoute(window.location.pathname, state.queryClient), wait]).finally(render);
}
