import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { ProjectResponseSchema, ProjectsPageSchema, type Project, type ProjectsPage } from './schemas';
import { request } from './request';

export const PROJECTS_PAGE_SIZE = 100;

export function fetchProjectsPage({
  orgId,
  cursor,
  limit,
  signal,
}: {
  orgId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
  signal?: AbortSignal;
}): Promise<ProjectsPage> {
  return request('/projects', ProjectsPageSchema, { query: { limit, cursor, org_id: orgId }, signal });
}

export async function fetchProject(projectId: string, signal?: AbortSignal): Promise<Project> {
  const body = await request(`/projects/${encodeURIComponent(projectId)}`, ProjectResponseSchema, { signal });
  return body.project;
}

export const projectQueries = {
  all: () => ['projects'] as const,
  list: (orgId: string | undefined, limit = PROJECTS_PAGE_SIZE) =>
    infiniteQueryOptions({
      queryKey: [...projectQueries.all(), 'list', { orgId: orgId ?? null, limit }] as const,
      queryFn: ({ pageParam, signal }) => fetchProjectsPage({ orgId, cursor: pageParam, limit, signal }),
      initialPageParam: undefined as string | undefined,
      // The cursor is the last project's id; a short page is the last one.
      getNextPageParam: (lastPage) =>
        lastPage.projects.length < limit ? undefined : (lastPage.pagination?.cursor ?? lastPage.projects.at(-1)?.id),
    }),
  detail: (projectId: string) =>
    queryOptions({
      queryKey: [...projectQueries.all(), 'detail', projectId] as const,
      queryFn: ({ signal }) => fetchProject(projectId, signal),
      staleTime: 60_000,
    }),
};
