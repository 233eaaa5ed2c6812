import type { QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { matchPath, Route, Routes, useLocation } from 'react-router-dom';
import { branchQueries } from '../api/branches';
import { endpointQueries } from '../api/endpoints';
import { operationQueries } from '../api/operations';
import { projectQueries } from '../api/projects';
import { ErrorBoundary } from '../components/error-boundary';
import type { NoticeStore } from './notices';
import { routePatterns } from './paths';
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
const projects = lazyScreen(async () => (await import('../screens/projects/projects-screen')).ProjectsScreen);
const operations = lazyScreen(async () => (await import('../screens/operations/operations-screen')).OperationsScreen);
const operationDetail = lazyScreen(
  async () => (await import('../screens/operation-detail/operation-detail-screen')).OperationDetailScreen,
);
const apiKeys = lazyScreen(async () => (await import('../screens/api-keys/api-keys-screen')).ApiKeysScreen);

// A prefetch that fails is simply fetched again by the screen, which shows the error.
const prefetch = (pending: Promise<unknown>) => void pending.catch(() => undefined);

/**
 * Starts the first data of the screen at `pathname` and returns its code's loading, so both travel
 * in parallel instead of one after the other.
 */
export function preloadRoute(pathname: string, queryClient: QueryClient): Promise<unknown> {
  const operation = matchPath(routePatterns.operation, pathname);
  if (operation?.params.projectId && operation.params.operationId) {
    const { projectId, operationId } = operation.params;
    prefetch(queryClient.query(operationQueries.detail(projectId, operationId)));
    prefetch(queryClient.query(projectQueries.detail(projectId)));
    return operationDetail.preload();
  }
  const project = matchPath(routePatterns.project, pathname);
  if (project?.params.projectId) {
    const { projectId } = project.params;
    prefetch(queryClient.infiniteQuery(operationQueries.history(projectId)));
    prefetch(queryClient.query(projectQueries.detail(projectId)));
    prefetch(queryClient.query(branchQueries.list(projectId)));
    prefetch(queryClient.query(endpointQueries.list(projectId)));
    return operations.preload();
  }
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
