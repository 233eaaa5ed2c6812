// Href builders: the only place that knows the shape of a console URL.
export const paths = {
  home: () => '/',
  project: (projectId: string) => `/projects/${encodeURIComponent(projectId)}`,
  operation: (projectId: string, operationId: string) => `/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`,
  apiKeys: () => '/settings/api-keys',
  activity: () => '/activity',
  archive: () => '/settings/archive',
  notifications: () => '/settings/notifications',
  audit: () => '/settings/audit',
  insights: (window?: string) => `/insights${window ? `?window=${window}` : ''}`,
  projectInsights: (projectId: string, window?: string) => `/projects/${encodeURIComponent(projectId)}/insights${window ? `?window=${window}` : ''}`,
};

export const routePatterns = {
  home: '/',
  project: '/projects/:projectId',
  operation: '/projects/:projectId/operations/:operationId',
  apiKeys: '/settings/api-keys',
  activity: '/activity',
  archive: '/settings/archive',
  notifications: '/settings/notifications',
  audit: '/settings/audit',
  insights: '/insights',
  projectInsights: '/projects/:projectId/insights',
} as const;

/**
 * Whether an id taken from the address can name anything: React Router leaves a segment whose
 * percent-encoding is malformed (`%E0%A4%A`) as it came, and the platform's ids never hold a `%`.
 * An id that is not readable is a thing that does not exist; nothing asks the API about it.
 */
export function isReadableId(id: string): boolean {
  return !id.includes('%');
}
