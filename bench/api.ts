// A few plain reads of the simulator, with the bench's key: which project is big, and its first page.
import type { Branch, Endpoint, Operation } from '../src/api/schemas';

export interface BenchProject {
  id: string;
  name: string;
}

export function apiClient(origin: string, apiKey: string) {
  async function get<T>(path: string, query: Record<string, string | number> = {}): Promise<T> {
    const url = new URL(`/api/v2${path}`, origin);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' } });
    if (!response.ok) throw new Error(`GET ${url.pathname} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  async function countOperations(projectId: string): Promise<number> {
    const limit = 1000;
    let count = 0;
    let cursor: string | undefined;
    for (;;) {
      const page = await get<{ operations: Operation[]; pagination?: { cursor: string } }>(
        `/projects/${encodeURIComponent(projectId)}/operations`,
        cursor === undefined ? { limit } : { limit, cursor },
      );
      count += page.operations.length;
      if (page.operations.length < limit || !page.pagination) return count;
      cursor = page.pagination.cursor;
    }
  }

  return {
    /** The project with the longest history among all the key can see (personal and organization). */
    async bigProject(): Promise<BenchProject & { operationCount: number }> {
      const { organizations } = await get<{ organizations: { id: string }[] }>('/users/me/organizations');
      const lists = await Promise.all([
        get<{ projects: BenchProject[] }>('/projects', { limit: 400 }),
        ...organizations.map((org) => get<{ projects: BenchProject[] }>('/projects', { limit: 400, org_id: org.id })),
      ]);
      const projects = [...new Map(lists.flatMap((l) => l.projects).map((p) => [p.id, p])).values()];
      const counted = await Promise.all(projects.map(async (p) => ({ id: p.id, name: p.name, operationCount: await countOperations(p.id) })));
      counted.sort((a, b) => b.operationCount - a.operationCount);
      const [big] = counted;
      if (!big) throw new Error('the simulator has no projects');
      return big;
    },
    /** The page the console fetches first for the operations table. */
    async firstOperations(projectId: string, limit: number): Promise<Operation[]> {
      const page = await get<{ operations: Operation[] }>(`/projects/${encodeURIComponent(projectId)}/operations`, { limit });
      return page.operations;
    },
    async branches(projectId: string): Promise<Branch[]> {
      return (await get<{ branches: Branch[] }>(`/projects/${encodeURIComponent(projectId)}/branches`)).branches;
    },
    async endpoints(projectId: string): Promise<Endpoint[]> {
      return (await get<{ endpoints: Endpoint[] }>(`/projects/${encodeURIComponent(projectId)}/endpoints`)).endpoints;
    },
  };
}
