import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { matchPath, Route, Routes, useLocation } from 'react-router-dom';
import { ErrorBoundary } from '../components/error-boundary';
import type { NoticeStore } from './notices';
import { routePatterns } from './paths';
import { screenModules } from './screen-modules';
import { SessionGate } from './session-gate';
import { Shell } from './shell';

/**
 * A screen loaded on demand. Once its code is in, it renders synchronously: a deep link preloads it
 * before the first render, so the page never shows (and React never throttles) a loading fallback.
 */
function lazyScreen(load: () => Promise<ComponentType>) {
  let Loaded: ComponentType | undefined;
  const preload = async (): Promise<ComponentType> => (Loaded ??= await load());
  const Lazy = lazy(async () => ({ default: await preload() }));
  function LazyScreen() {
    return Loaded ? <Loaded /> : <Lazy />;
  }
  return { LazyScreen, preload };
}

// Screens not needed at first paint load on demand; the key screen ships with the entry.
const projects = lazyScreen(screenModules.projects);
const operations = lazyScreen(screenModules.operations);
const operationDetail = lazyScreen(screenModules.operationDetail);
const apiKeys = lazyScreen(screenModules.apiKeys);

/** The code of the screen at `pathname`, so the first render can wait for it (its data was started by early-start.ts). */
export function preloadScreen(pathname: string): Promise<unknown> {
  if (matchPath(routePatterns.operation, pathname)) return operationDetail.preload();
  if (matchPath(routePatterns.project, pathname)) return operations.preload();
  if (matchPath(routePatterns.apiKeys, pathname)) return apiKeys.preload();
  if (matchPath(routePatterns.home, pathname)) return projects.preload();
  return Promise.resolve();
}

function Screen({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return (
    <ErrorBoundary key={pathname}>
      <Suspense
        fallback={
          <p className="muted" role="status">
            Loading…
          </p>
        }
      >
        {children}
      </Suspense>
    </ErrorBoundary>
  );
}

function NotFound() {
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is nothing at this address. <a href="/">Go to your projects</a>.
      </p>
    </section>
  );
}

export function AppRoutes({ notices }: { notices: NoticeStore }) {
  return (
    <Routes>
      <Route element={<SessionGate />}>
        <Route element={<Shell notices={notices} />}>
          <Route index element={<Screen><projects.LazyScreen /></Screen>} />
          <Route path={routePatterns.project} element={<Screen><operations.LazyScreen /></Screen>} />
          <Route path={routePatterns.operation} element={<Screen><operationDetail.LazyScreen /></Screen>} />
          <Route path={routePatterns.apiKeys} element={<Screen><apiKeys.LazyScreen /></Screen>} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}
