import { dehydrate, hydrate, QueryClient } from '@tanstack/react-query';
import { matchPath } from 'react-router-dom';
import { branchQueries } from '../api/branches';
import { setApiKey } from '../api/credentials';
import { endpointQueries } from '../api/endpoints';
import { operationQueries } from '../api/operations';
import { projectQueries } from '../api/projects';
import { routePatterns } from './paths';
import { screenModules } from './screen-modules';
import { storedApiKey } from './session';

// A failed early request is made again by the screen, which shows its error.
const noop = () => undefined;

export interface EarlyStart {
  /** The opened screen's code, loading. */
  screen: Promise<unknown>;
  /** Hands the data requests already under way (or done) to the app's query client. */
  handOver: (queryClient: QueryClient) => void;
}

/**
 * The first thing the page does, before the app's own code has arrived: on a signed-in deep link,
 * starts the screen's first requests and its code side by side. The requests run in a client of
 * their own (the app's does not exist yet) and move into the app's client with React Query's
 * hydration, which takes over a request still in flight rather than sending it again. A failed
 * request is left behind for the screen to make again, through the app's error policy.
 */
export function startEarly(pathname: string): EarlyStart | null {
  const apiKey = storedApiKey();
  if (apiKey === null) return null;
  setApiKey(apiKey);
  // Not cleared after the hand-over: that would cancel the requests still in flight. Its copies are
  // dropped a minute later, long after the first render.
  const early = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: 60_000 } } });
  const handOver = (queryClient: QueryClient) => {
    hydrate(
      queryClient,
      dehydrate(early, { shouldDehydrateQuery: (query) => query.state.status !== 'error', shouldRedactErrors: () => false }),
    );
  };

  const operation = matchPath(routePatterns.operation, pathname);
  if (operation?.params.projectId && operation.params.operationId) {
    const { projectId, operationId } = operation.params;
    early.query(operationQueries.detail(projectId, operationId)).catch(noop);
    early.query(projectQueries.detail(projectId)).catch(noop);
    return { screen: screenModules.operationDetail(), handOver };
  }
  const project = matchPath(routePatterns.project, pathname);
  if (project?.params.projectId) {
    const { projectId } = project.params;
    early.infiniteQuery(operationQueries.history(projectId)).catch(noop);
    early.query(projectQueries.detail(projectId)).catch(noop);
    early.query(branchQueries.list(projectId)).catch(noop);
    early.query(endpointQueries.list(projectId)).catch(noop);
    return { screen: screenModules.operations(), handOver };
  }
  if (matchPath(routePatterns.apiKeys, pathname)) return { screen: screenModules.apiKeys(), handOver };
  if (matchPath(routePatterns.home, pathname)) return { screen: screenModules.projects(), handOver };
  return null;
}
