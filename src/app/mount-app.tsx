import { StrictMode, useEffect, type ErrorInfo, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app';
import type { AppState } from './app-state';

/** What a person did on the server's HTML before React listened, handed back once it does. */
export interface EarlyInput {
  releaseClicks: () => void;
  /** Run after React has taken the page over (once; later runs find nothing). */
  replayEdits: () => Promise<void>;
}

const NO_EARLY_INPUT: EarlyInput = { releaseClicks: () => undefined, replayEdits: () => Promise.resolve() };

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

/**
 * Runs `then` once React has taken the page over: after the first commit (this effect runs after the whole
 * tree's), in a task of its own, where an event dispatched to a part React has yet to hydrate makes it do so
 * at once (inside a commit it would not).
 */
export function AfterTakeover({ then, children }: { then: () => unknown; children: ReactNode }) {
  useEffect(() => {
    const timer = setTimeout(then, 0);
    return () => clearTimeout(timer);
  }, [then]);
  return children;
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
 * than after a loading fallback (a server-rendered page shows its HTML meanwhile). `early` gives back the
 * buttons pressed on that HTML before React listened (early-clicks.ts), and the fields typed in (early-edits.ts).
 */
export function mountApp(
  container: HTMLElement,
  state: AppState,
  screen: Promise<unknown> | null,
  renderedAt: number | null = null,
  early: EarlyInput = NO_EARLY_INPUT,
): void {
  const app = (
    <StrictMode>
      <AfterTakeover then={early.replayEdits}>
        <App state={state} renderedAt={renderedAt ?? undefined} />
      </AfterTakeover>
    </StrictMode>
  );
  const render = () => {
    if (renderedAt === null) createRoot(container).render(app);
    // The server's HTML is painted first: hydrating in the task that parsed the page would hold its first paint back.
    else
      afterNextPaint(() => {
        hydrateRoot(container, app, { onRecoverableError: reportRecovered });
        // React listens now: a button pressed before is pressed again, and React hydrates what it landed in first.
        early.releaseClicks();
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
