import { StrictMode, type ReactNode } from 'react';
import { renderToReadableStream } from 'react-dom/server';
import { StaticRouter } from 'react-router-dom';
import { describeProblem, isApiError } from './api/api-error';
import { setApiTarget } from './config/api-target';
import type { PageData, PageSession } from './api/page-data';
import { dehydrateForPage, type RenderedQueries } from './api/rendered-queries';
import type { Transport } from './api/request';
import { AppProviders } from './app/app-providers';
import { createServerAppState, type AppState } from './app/app-state';
import { firstScreenOf, type ScreenName } from './app/first-screen';
import { AppRoutes } from './app/routes';
import { keyScreen, renderedSources, screenModules } from './app/screen-modules';

// The console rendered on the server (server/pages/ streams it): a signed-in request's screen with its
// first data, fetched through that request's own transport into that request's own query client. Nothing
// here is shared between requests but code: each render makes its stores, and drops them when done.

export type { ScreenName };

export interface ScreenRequest {
  /** The page's path with its query. */
  url: string;
  session: PageSession;
  /** How this request's queries reach the API (the server adds its session's key). */
  transport: Transport;
  /** Aborted when the page stops waiting (the browser went away, or the render took too long). */
  signal: AbortSignal;
  /** Aborted when the deadline for the first data passes: data not in by then is given up; a render under way goes on. */
  dataDeadline?: AbortSignal | undefined;
  /** Renders the server keeps a short while, reused for the same inputs (server/pages/render-memo.ts); none, every page renders. */
  memo?: RenderMemo | undefined;
  /**
   * The process's cap on React renders at once (CPU, unlike waiting for data): taken once the data is in
   * and no kept render fits; refused, the page goes out as the shell at once rather than queue.
   */
  renderSlot?: { enter: () => boolean; leave: () => void } | undefined;
  /** The real API the server forwards to (PageData.apiUrl); undefined: the built-in simulator. */
  apiUrl?: string | undefined;
}

export type RenderedScreen = Extract<ScreenRender, { kind: 'rendered' }>;

/**
 * A render is a function of its address, its session's description and its data: the same three give
 * the same HTML. `key` names those three (the data without the times it was fetched at); the server
 * decides how long a render may be reused (its relative times were worked out when it was made).
 */
export interface RenderMemo {
  get: (key: string) => RenderedScreen | undefined;
  set: (key: string, render: RenderedScreen) => void;
}

/** What a render depends on: the address, the session as the page describes it, and each query's data. */
function renderInputs(url: string, session: PageSession, queries: RenderedQueries): string {
  return JSON.stringify([url, session, queries.queries.map((query) => [query.queryHash, query.state.data])]);
}

export type ScreenRender =
  | { kind: 'rendered'; html: string; queries: RenderedQueries; renderedAt: number }
  /** The API refused the session's key: the session is over. */
  | { kind: 'unauthorized' }
  /** A first-data request failed (or was abandoned): the page goes out as the browser's shell, which asks again. */
  | { kind: 'unavailable'; problem: string }
  /** Rendering itself failed: a bug, reported by the server; the page goes out as the shell too. */
  | { kind: 'broken'; error: unknown };

/**
 * Each screen's source files (its own, then the code its rendered HTML shows besides): the server looks
 * their chunks up in the client build's manifest to preload them.
 */
export const screenSources = {
  ...(Object.fromEntries(Object.entries(screenModules).map(([screen, module]): [string, readonly string[]] => [screen, renderedSources(module)])) as Record<
    ScreenName,
    readonly string[]
  >),
  /** The key screen, of every signed-out page: its code is not in the first load either. */
  key: [keyScreen.source],
};

/** Loads every screen's code, so no page waits for it (the server calls this once, before it listens). */
export async function loadScreens(): Promise<void> {
  await Promise.all([...Object.values(screenModules).map((screen) => screen.load()), keyScreen.load()]);
}

/** The screen the server renders at `url` with its data, or null when the page is left to the browser. */
export function serverRenderedScreen(url: string, session: PageSession): ScreenName | null {
  if (!session.signedIn) return null;
  const first = firstScreenOf(url, session.keyKind);
  return first?.serverRendered ? first.screen : null;
}

/** How long the server waits for the first data of the screen at `url`, when that screen says (else the page's own deadline). */
export function screenDataDeadlineMs(url: string, session: PageSession): number | undefined {
  return session.signedIn ? firstScreenOf(url, session.keyKind)?.dataDeadlineMs : undefined;
}

/**
 * Everything rendered, nothing left suspended: React then writes no inline script (the CSP allows
 * none); an error anywhere fails the render rather than leaving a part for the browser to fill in.
 */
async function renderToHtml(element: ReactNode, signal: AbortSignal): Promise<string> {
  let failure: { error: unknown } | undefined;
  // No boundary is ever sent apart however large (React would move it with a script): one document.
  const stream = await renderToReadableStream(element, { signal, progressiveChunkSize: Infinity, onError: (error) => void (failure ??= { error }) });
  await stream.allReady;
  const html = await new Response(stream).text();
  if (failure) throw failure.error;
  if (html.includes('<script')) throw new Error('The server render wrote a script, which the CSP would block.');
  return html;
}

/** Settles when `signal` aborts (never without one), so the first data can be raced against it. */
function whenAborted(signal: AbortSignal | undefined): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

/**
 * The app as the browser renders it over this HTML (app.tsx): the same providers and routes, at `url`,
 * inside the process's cap on React renders at once; with the queries it was rendered from, and the one
 * clock reading of the render (the HTML's relative times, and the browser's first render over it).
 */
async function renderApp(
  state: AppState,
  { url, queries, signal, renderSlot }: { url: string; queries: RenderedQueries; signal: AbortSignal; renderSlot: ScreenRequest['renderSlot'] },
): Promise<RenderedScreen | { kind: 'unavailable'; problem: string }> {
  if (renderSlot && !renderSlot.enter()) return { kind: 'unavailable', problem: 'The server is rendering as many pages as it can at once.' };
  const renderedAt = Date.now();
  let html: string;
  try {
    html = await renderToHtml(
      <StrictMode>
        <AppProviders state={state} renderedAt={renderedAt}>
          <StaticRouter location={url}>
            <AppRoutes notices={state.notices} signInProblem={state.signInProblem} />
          </StaticRouter>
        </AppProviders>
      </StrictMode>,
      signal,
    );
  } finally {
    renderSlot?.leave();
  }
  return { kind: 'rendered', html, queries, renderedAt };
}

export interface KeyScreenRequest {
  /** The address the key screen stands in for (a failed form post's: the one it was posted from). */
  url: string;
  /** The page's data block: signed out, maybe with why the session ended or a form post failed. */
  data: PageData;
  signal: AbortSignal;
  renderSlot?: ScreenRequest['renderSlot'];
}

/**
 * A signed-out page: the key screen in place of the page asked for, as the browser would draw it, so a new
 * person sees it (and can sign in, with the form's plain post) before any script has arrived. It reads no data.
 */
export async function renderKeyScreen({ url, data, signal, renderSlot }: KeyScreenRequest): Promise<ScreenRender> {
  if (data.session.signedIn) return { kind: 'broken', error: new Error('The key screen is rendered for a signed-out page only') };
  setApiTarget(data.apiUrl);
  const transport: Transport = () => Promise.reject(new Error('The key screen reads nothing from the API'));
  const state = createServerAppState({ session: data.session, transport, signInProblem: data.signIn?.problem, endedBecause: data.sessionEnded });
  try {
    await keyScreen.load();
    return await renderApp(state, { url, queries: dehydrateForPage(state.queryClient), signal, renderSlot });
  } catch (error) {
    return { kind: 'broken', error };
  } finally {
    state.queryClient.clear();
  }
}

export async function renderScreen({ url, session, transport, signal, dataDeadline, memo, renderSlot, apiUrl }: ScreenRequest): Promise<ScreenRender> {
  // One server has one API: the same on every render of this process, as the page's data block says.
  setApiTarget(apiUrl);
  const first = session.signedIn ? firstScreenOf(url, session.keyKind) : null;
  if (!first?.serverRendered) return { kind: 'broken', error: new Error(`${url} is not rendered on the server`) };
  const state = createServerAppState({ session, transport });
  const { queryClient } = state;
  const abandon = () => void queryClient.cancelQueries();
  signal.addEventListener('abort', abandon, { once: true });
  try {
    try {
      const loaded = await Promise.race([Promise.all([screenModules[first.screen].load(), ...first.load(queryClient)]), whenAborted(dataDeadline)]);
      if (loaded === 'aborted') return { kind: 'unavailable', problem: 'The API did not answer before the deadline.' };
    } catch (error) {
      if (isApiError(error) && error.isUnauthorized) return { kind: 'unauthorized' };
      return { kind: 'unavailable', problem: describeProblem(error) };
    }
    if (signal.aborted) return { kind: 'unavailable', problem: 'The page stopped waiting for the API.' };
    const queries = dehydrateForPage(queryClient);
    // The data came back as it was a moment ago: the render made of it then is this one (with its own clock reading).
    const inputs = memo ? renderInputs(url, session, queries) : '';
    const kept = memo?.get(inputs);
    if (kept) return kept;
    const rendered = await renderApp(state, { url, queries, signal, renderSlot });
    if (rendered.kind === 'rendered') memo?.set(inputs, rendered);
    return rendered;
  } catch (error) {
    return { kind: 'broken', error };
  } finally {
    signal.removeEventListener('abort', abandon);
    // Requests still out (one failed first, or the page stopped waiting) are abandoned with the render.
    void queryClient.cancelQueries();
    queryClient.clear();
  }
}
