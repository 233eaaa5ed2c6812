import type { QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
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

// Screens not needed at first paint load on demand; the key screen ships with the entry.
const loadProjects = () => import('../screens/projects/projects-screen');
const loadOperations = () => import('../screens/operations/operations-screen');
const loadOperationDetail = () => import('../screens/operation-detail/operation-detail-screen');
const loadApiKeys = () => import('../screens/api-keys/api-keys-screen');

const ProjectsScreen = lazy(async () => ({ default: (await loadProjects()).ProjectsScreen }));
const OperationsScreen = lazy(async () => ({ default: (await loadOperations()).OperationsScreen }));
const OperationDetailScreen = lazy(async () => ({ default: (await loadOperationDetail()).OperationDetailScreen }));
const ApiKeysScreen = lazy(async () => ({ default: (await loadApiKeys()).ApiKeysScreen }));

// A prefetch that fails is simply fetched again by the screen, which shows the error.
const prefetch = (pending: Promise<unknown>) => void pending.catch(() => undefined);

/** Kicks off the code and the first data of the screen at `pathname`, in parallel. */
export function preloadRoute(pathname: string, queryClient: QueryClient): void {
  const operation = matchPath(routePatterns.operation, pathname);
  if (operation?.params.projectId && operation.params.operationId) {
    void loadOperationDetail();
    prefetch(queryClient.query(operationQueries.detail(operation.params.projectId, operation.params.operationId)));
    return;
  }
  const project = matchPath(routePatterns.project, pathname);
  if (project?.params.projectId) {
    const { projectId } = project.params;
    void loadOperations();
    prefetch(queryClient.infiniteQuery(operationQueries.history(projectId)));
    prefetch(queryClient.query(projectQueries.detail(projectId)));
    prefetch(queryClient.query(branchQueries.list(projectId)));
    prefetch(queryClient.query(endpointQueries.list(projectId)));
    return;
  }
  if (matchPath(routePatterns.home, pathname)) void loadProjects();
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
          <Route index element={<Screen><ProjectsScreen /></Screen>} />
          <Route path={routePatterns.project} element={<Screen><OperationsScreen /></Screen>} />
          <Route path={routePatterns.operation} element={<Screen><OperationDetailScreen /></Screen>} />
          <Route path={routePatterns.apiKeys} element={<Screen><ApiKeysScreen /></Screen>} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}
