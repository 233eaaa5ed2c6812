import { Suspense, type ReactNode } from 'react';
import { Route, Routes, useLocation } from 'react-router-dom';
import { ErrorBoundary } from '../components/error-boundary';
import type { SignInProblem } from '../api/page-data';
import { routePatterns } from '../config/paths';
import { lazyComponent } from '../lib/code-module';
import { useDocumentTitle } from '../lib/use-document-title';
import type { NoticeStore } from './notices';
import { screenModules } from './screen-modules';
import { SessionGate } from './session-gate';
import { Shell } from './shell';

// Screens not needed at first paint load on demand; the key screen ships with the entry.
// Once a screen's code is in, it renders synchronously: a deep link loads it before the first render
// (early-start.ts), so the page never shows (and React never throttles) a loading fallback.
const ProjectsScreen = lazyComponent(screenModules.projects);
const ProjectScreen = lazyComponent(screenModules.project);
const OperationDetailScreen = lazyComponent(screenModules.operation);
const ApiKeysScreen = lazyComponent(screenModules.apiKeys);
const ActivityScreen = lazyComponent(screenModules.activity);
const ArchiveScreen = lazyComponent(screenModules.archive);
const NotificationsScreen = lazyComponent(screenModules.notifications);
const InsightsScreen = lazyComponent(screenModules.insights);
const ProjectInsightsScreen = lazyComponent(screenModules.projectInsights);

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
  useDocumentTitle('Page not found');
  return (
    <section>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is nothing at this address. <a href="/">Go to your projects</a>.
      </p>
    </section>
  );
}

export function AppRoutes({ notices, signInProblem }: { notices: NoticeStore; signInProblem?: SignInProblem | undefined }) {
  return (
    <Routes>
      <Route element={<SessionGate formProblem={signInProblem} />}>
        <Route element={<Shell notices={notices} />}>
          <Route index element={<Screen><ProjectsScreen /></Screen>} />
          <Route path={routePatterns.project} element={<Screen><ProjectScreen /></Screen>} />
          <Route path={routePatterns.operation} element={<Screen><OperationDetailScreen /></Screen>} />
          <Route path={routePatterns.apiKeys} element={<Screen><ApiKeysScreen /></Screen>} />
          <Route path={routePatterns.activity} element={<Screen><ActivityScreen /></Screen>} />
          <Route path={routePatterns.archive} element={<Screen><ArchiveScreen /></Screen>} />
          <Route path={routePatterns.notifications} element={<Screen><NotificationsScreen /></Screen>} />
          <Route path={routePatterns.insights} element={<Screen><InsightsScreen /></Screen>} />
          <Route path={routePatterns.projectInsights} element={<Screen><ProjectInsightsScreen /></Screen>} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}
