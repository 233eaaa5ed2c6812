import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { ProjectResponseSchema, ProjectsPageSchema, type Project, type ProjectsPage } from './schemas';
import { callOf } from './query-transport';
import { request, type Call } from './request';

export const PROJECTS_PAGE_SIZE = 100;

export function fetchProjectsPage({
  orgId,
  cursor,
  limit,
  ...call
}: {
  orgId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
} & Call): Promise<ProjectsPage> {
  return request('/projects', ProjectsPageSchema, { query: { limit, cursor, org_id: orgId }, ...call });
}

export async function fetchProject(projectId: string, call: Call = {}): Promise<Project> {
  const body = await request(`/projects/${encodeURIComponent(projectId)}`, ProjectResponseSchema, call);
  return body.project;
}

export const projectQueries = {
  all: () => ['projects'] as const,
  list: (orgId: string | undefined, limit = PROJECTS_PAGE_SIZE) =>
    infiniteQueryOptions({
      queryKey: [...projectQueries.all(), 'list', { orgId: orgId ?? null, limit }] as const,
      queryFn: (context) => fetchProjectsPage({ orgId, cursor: context.pageParam, limit, ...callOf(context) }),
      initialPageParam: undefined as string | undefined,
      // The cursor is the last project's id; a short page is the last one.
      getNextPageParam: (lastPage) => (lastPage.projects.length < limit ? undefined : (lastPage.pagination?.cursor ?? lastPage.projects.at(-1)?.id)),
    }),
  detail: (projectId: string) =>
    queryOptions({
      queryKey: [...projectQueries.all(), 'detail', projectId] as const,
      queryFn: (context) => fetchProject(projectId, callOf(context)),
      staleTime: 60_000,
    }),
};
