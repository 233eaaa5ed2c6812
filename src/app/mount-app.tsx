import { StrictMode, type ErrorInfo } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app';
import type { AppState } from './app-state';

/** Longest a first render waits for the deep-linked screen's code before showing a loading state. */
const PRELOAD_WAIT_MS = 2_000;

/**
 * React rendered part of the page again itself (a server-rendered page that did not match, say): reported
 * like an uncaught error, so it is seen, never silently absorbed (the browser tests count them).
 */
function reportRecovered(error: unknown, { componentStack }: ErrorInfo): void {
  const where = componentStack?.trim().split('\n')[0]?.trim();
  const message = error instanceof Error ? error.message : String(error);
  reportError(new Error(`React recovered from an error${where ? ` (${where})` : ''}: ${message}`, { cause: error }));
}

/** Runs `then` once the browser has painted (a frame, then a task after it); at once in a hidden tab, which paints no frames. */
function afterNextPaint(then: () => void): void {
  if (document.visibilityState === 'hidden') {
    then();
    return;
  }
  requestAnimationFrame(() => setTimeout(then, 0));
}

/**
 * Renders the console into `container` with the state main.tsx made (a deep link's requests may
 * already be under way in its query client), or hydrates the server's HTML in it when the page was
 * rendered on the server at `renderedAt` (its queries are in the cache already). Given the opened
 * screen's code loading (`screen`), the first render waits for it, so the screen appears whole rather
 * than after a loading fallback (a server-rendered page shows its HTML meanwhile). `releaseClicks` gives
 * back the buttons pressed on that HTML before React listened (early-clicks.ts).
 */
export function mountApp(container: HTMLElement, state: AppState, screen: Promise<unknown> | null, renderedAt: number | null = null, releaseClicks: () => void = () => undefined): void {
  const app = (
    <StrictMode>
      <App state={state} renderedAt={renderedAt ?? undefined} />
    </StrictMode>
  );
  const render = () => {
    if (renderedAt === null) createRoot(container).render(app);
    // The server's HTML is painted first: hydrating in the task that parsed the page would hold its first paint back.
    else
      afterNextPaint(() => {
        hydrateRoot(container, app, { onRecoverableError: reportRecovered });
        // React listens now: a button pressed before is pressed again, and React hydrates what it landed in first.
        releaseClicks();
      });
  };
  if (!screen) {
    render();
    return;
  }
  // A screen whose code fails to load renders anyway: the router's own import shows the error.
  const wait = new Promise((resolve) => setTimeout(resolve, PRELOAD_WAIT_MS));
  void Promise.race([screen, wait]).then(render, render);
}
