import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import type { AppState } from './app-state';

/** Longest a first render waits for the deep-linked screen's code before showing a loading state. */
const PRELOAD_WAIT_MS = 2_000;

/**
 * Renders the console into `container` with the state main.tsx made (a deep link's requests may
 * already be under way in its query client). Given the opened screen's code loading (`screen`), the
 * first render waits for it, so the screen appears whole rather than after a loading fallback.
 */
export function mountApp(container: HTMLElement, state: AppState, screen: Promise<unknown> | null): void {
  const render = () =>
    createRoot(container).render(
      <StrictMode>
        <App state={state} />
      </StrictMode>,
    );
  if (!screen) {
    render();
    return;
  }
  // A screen whose code fails to load renders anyway: the router's own import shows the error.
  const wait = new Promise((resolve) => setTimeout(resolve, PRELOAD_WAIT_MS));
  void Promise.race([screen, wait]).then(render, render);
}
