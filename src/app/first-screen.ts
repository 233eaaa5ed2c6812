import type { QueryClient } from '@tanstack/react-query';
import { matchPath } from 'react-router-dom';
import { authQueries } from '../api/auth';
import { branchQueries } from '../api/branches';
import { endpointQueries } from '../api/endpoints';
import { operationQueries } from '../api/operations';
import type { KeyKind } from '../api/page-data';
import { projectQueries } from '../api/projects';
import { insightWindowOf } from '../config/insight-windows';
import { isReadableId, routePatterns } from '../config/paths';
import type { screenModules } from './screen-modules';

export type ScreenName = keyof typeof screenModules;

/** The screen a signed-in page opens on, and the data it shows first. */
export interface FirstScreen {
  screen: ScreenName;
  /** Whether the server renders it with its first data; the API keys page is left to the browser. */
  serverRendered: boolean;
  /** Starts the screen's first requests in `client`, one promise each (they reject with the request's failure). */
  load: (client: QueryClient) => Promise<unknown>[];
  /**
   * How long the server waits for this screen's first data, when it is the console's own store's rather than the
   * API's: the browser would ask the same store again, and without scripts the rendered page is all there is.
   */
  dataDeadlineMs?: number;
}

/** The insights' first data: the store's sums over a window (a 90-day one over 20,000 operations took 75–250 ms on a busy 2-core machine). */
const STORE_DATA_DEADLINE_MS = 2_000;

/**
 * The one list of what each screen needs first, read by the browser's early start (before React has
 * arrived) and by the server's render (before it renders the screen), so both fetch the same queries
 * and a server-rendered page's data block holds exactly what the screen reads. `url` is a path with its
 * query; null for an address no screen owns.
 */
export function firstScreenOf(url: string, keyKind: KeyKind | null = null): FirstScreen | null {
  const { pathname, searchParams } = new URL(url, 'http://console.invalid');
  const operation = matchPath(routePatterns.operation, pathname);
  if (operation?.params.projectId && operation.params.operationId) {
    const { projectId, operationId } = operation.params;
    if (!isReadableId(projectId) || !isReadableId(operationId)) return { screen: 'operation', serverRendered: true, load: () => [] };
    return {
      screen: 'operation',
      serverRendered: true,
      load: (client) => [
        // A kept operation the API no longer lists comes from the archive, never as a 404 from the API. The archive's
        // client (and its schemas) load with this screen, not in every page's first JavaScript.
        import('../api/archive').then(({ loadOperationArchiveFirst }) => loadOperationArchiveFirst(client, projectId, operationId)),
        client.query(projectQueries.detail(projectId)),
        client.query(branchQueries.list(projectId)),
        client.query(endpointQueries.list(projectId)),
        // The usual durations ("Longer than usual") read the history's first page: it comes along too.
        client.infiniteQuery(operationQueries.history(projectId)),
      ],
    };
  }
  // The console's own record, summed up by its server from the store: rendered with the page, so it reads without
  // scripts. The screen's own module says what it reads first: its wire comes with its code, not in every first load.
  const projectInsights = matchPath(routePatterns.projectInsights, pathname);
  if (projectInsights?.params.projectId) {
    const { projectId } = projectInsights.params;
    const insightWindow = insightWindowOf(searchParams.get('window'));
    return {
      screen: 'projectInsights',
      serverRendered: true,
      dataDeadlineMs: STORE_DATA_DEADLINE_MS,
      load: (client) => [import('../screens/insights/project-insights-screen').then(({ firstQuery }) => client.query(firstQuery(projectId, insightWindow)))],
    };
  }
  if (matchPath(routePatterns.insights, pathname)) {
    const insightWindow = insightWindowOf(searchParams.get('window'));
    return {
      screen: 'insights',
      serverRendered: true,
      dataDeadlineMs: STORE_DATA_DEADLINE_MS,
      load: (client) => [import('../screens/insights/insights-screen').then(({ firstQuery }) => client.query(firstQuery(insightWindow)))],
    };
  }
  const project = matchPath(routePatterns.project, pathname);
  if (project?.params.projectId) {
    const { projectId } = project.params;
    if (!isReadableId(projectId)) return { screen: 'project', serverRendered: true, load: () => [] };
    return {
      screen: 'project',
      serverRendered: true,
      load: (client) => [
        client.infiniteQuery(operationQueries.history(projectId)),
        client.query(projectQueries.detail(projectId)),
        client.query(branchQueries.list(projectId)),
        client.query(endpointQueries.list(projectId)),
      ],
    };
  }
  // Its lists depend on the key's kind and organizations, one answer after another; nothing there is urgent.
  if (matchPath(routePatterns.apiKeys, pathname)) return { screen: 'apiKeys', serverRendered: false, load: () => [] };
  // Live by nature (its scheduler reads one project at a time, inside a budget): the browser starts it.
  if (matchPath(routePatterns.activity, pathname)) return { screen: 'activity', serverRendered: false, load: () => [] };
  // The console's own record, not the API's: the browser reads it (the server sends the shell).
  if (matchPath(routePatterns.archive, pathname)) return { screen: 'archive', serverRendered: false, load: () => [] };
  // Webhooks are the console's own routes, read by the page: nothing the first paint needs.
  if (matchPath(routePatterns.notifications, pathname)) return { screen: 'notifications', serverRendered: false, load: () => [] };
  // Team sign-in's audit trail (docs/team.md): the console's own record, read by the page.
  if (matchPath(routePatterns.audit, pathname)) return { screen: 'audit', serverRendered: false, load: () => [] };
  if (matchPath(routePatterns.home, pathname)) {
    const orgId = searchParams.get('org') ?? undefined;
    return {
      screen: 'projects',
      serverRendered: true,
      load: (client) => [
        client.query(authQueries.details()),
        client.infiniteQuery(projectQueries.list(orgId)),
        // A personal key's projects page offers its organizations.
        ...(keyKind === 'personal' ? [client.query(authQueries.organizations())] : []),
      ],
    };
  }
  return null;
}
