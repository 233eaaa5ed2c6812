import { Suspense, type ReactNode } from 'react';
import { Route, Routes, useLocation, useParams } from 'react-router-dom';
import { ErrorBoundary } from '../components/error-boundary';
import type { SignInProblem } from '../api/page-data';
import { isReadableId, routePatterns } from '../config/paths';
import { lazyComponent } from '../lib/code-module';
import { useDocumentTitle } from '../lib/use-document-title';
import type { NoticeStore } from './notices';
import { screenModules } from './screen-modules';
import { SessionGate } from './session-gate';
import { Shell } from './shell';

// Screens not needed at first paint load on demand (the key screen too: session-gate.tsx).
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
const AuditScreen = lazyComponent(screenModules.audit);
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

function NotFound({ what = 'Page' }: { what?: 'Page' | 'Project' | 'Operation' }) {
  useDocumentTitle(`${what} not found`);
  return (
    <section>
      <h1 tabIndex={-1}>{what} not found</h1>
      <p>
        There is nothing at this address. <a href="/">Go to your projects</a>.
      </p>
    </section>
  );
}

/** A project or operation whose id in the address cannot be decoded does not exist: said at once, no API read. */
function ReadableIds({ children }: { children: ReactNode }) {
  const { projectId = '', operationId = '' } = useParams();
  if (!isReadableId(projectId)) return <NotFound what="Project" />;
  if (!isReadableId(operationId)) return <NotFound what="Operation" />;
  return children;
}

export function AppRoutes({ notices, signInProblem }: { notices: NoticeStore; signInProblem?: SignInProblem | undefined }) {
  return (
    <Routes>
      <Route element={<SessionGate formProblem={signInProblem} />}>
        <Route element={<Shell notices={notices} />}>
          <Route
            index
            element={
              <Screen>
                <ProjectsScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.project}
            element={
              <ReadableIds>
                <Screen>
                  <ProjectScreen />
                </Screen>
              </ReadableIds>
            }
          />
          <Route
            path={routePatterns.operation}
            element={
              <ReadableIds>
                <Screen>
                  <OperationDetailScreen />
                </Screen>
              </ReadableIds>
            }
          />
          <Route
            path={routePatterns.apiKeys}
            element={
              <Screen>
                <ApiKeysScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.activity}
            element={
              <Screen>
                <ActivityScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.archive}
            element={
              <Screen>
                <ArchiveScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.notifications}
            element={
              <Screen>
                <NotificationsScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.audit}
            element={
              <Screen>
                <AuditScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.insights}
            element={
              <Screen>
                <InsightsScreen />
              </Screen>
            }
          />
          <Route
            path={routePatterns.projectInsights}
            element={
              <ReadableIds>
                <Screen>
                  <ProjectInsightsScreen />
                </Screen>
              </ReadableIds>
            }
          />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}
