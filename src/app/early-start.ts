import type { QueryClient } from '@tanstack/react-query';
import { matchPath } from 'react-router-dom';
import { branchQueries } from '../api/branches';
import { endpointQueries } from '../api/endpoints';
import { operationQueries } from '../api/operations';
import { projectQueries } from '../api/projects';
import { routePatterns } from '../config/paths';
import { screenModules } from './screen-modules';

// A failed early request is left in the cache as it is; the screen shows it (and retries) as usual.
const noop = () => undefined;

/**
 * The first thing a signed-in page does, before the app's own code (React DOM, the router's
 * screens) has arrived: starts the first requests of the screen at `pathname` in the app's query
 * client, and that screen's code, side by side. Returns the code's loading (for the first render to
 * wait on); null when there is nothing to start.
 */
export function startEarly(pathname: string, queryClient: QueryClient): Promise<unknown> | null {
  const operation = matchPath(routePatterns.operation, pathname);
  if (operation?.params.projectId && operation.params.operationId) {
    const { projectId, operationId } = operation.params;
    queryClient.query(operationQueries.detail(projectId, operationId)).catch(noop);
    queryClient.query(projectQueries.detail(projectId)).catch(noop);
    return screenModules.operation.load();
  }
  const project = matchPath(routePatterns.project, pathname);
  if (project?.params.projectId) {
    const { projectId } = project.params;
    queryClient.infiniteQuery(operationQueries.history(projectId)).catch(noop);
    queryClient.query(projectQueries.detail(projectId)).catch(noop);
    queryClient.query(branchQueries.list(projectId)).catch(noop);
    queryClient.query(endpointQueries.list(projectId)).catch(noop);
    return screenModules.project.load();
  }
  if (matchPath(routePatterns.apiKeys, pathname)) return screenModules.apiKeys.load();
  if (matchPath(routePatterns.home, pathname)) return screenModules.projects.load();
  return null;
}
