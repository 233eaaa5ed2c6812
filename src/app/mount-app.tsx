import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import type { AppState } from './app-state';
import { preloadScreen } from './routes';

/** Longest a first render waits for the deep-linked screen's code before showing a loading state. */
const PRELOAD_WAIT_MS = 2_000;

/**
 * Renders the console into `container` with the state main.tsx made (a deep link's requests may
 * already be under way in its query client). Signed in, the first render waits for the opened
 * screen's code, so the screen appears whole rather than after a loading fallback.
 */
export function mountApp(container: HTMLElement, state: AppState): void {
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
  const wait = new Promise((resolve) => setTimeout(resolve, PRELOAD_WAIT_MS));
  void Promise.race([preloadScreen(window.location.pathname), wait]).finally(render);
}
