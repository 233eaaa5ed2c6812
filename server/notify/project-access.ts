// Before an event about a project goes out, the key of the person who made the webhook must still read
// that project (DESIGN §5: never tell anyone about a project their key cannot read). One project read per
// (webhook, project), cached a few minutes; the read also gives the project's name and organization.
import * as z from 'zod/mini';
import { API_PREFIX, type ApiFetch } from '../http/node-bridge';

export const ACCESS_TTL_MS = 5 * 60_000;

const ProjectReadSchema = z.object({ project: z.object({ id: z.string(), name: z.string(), org_id: z.optional(z.nullable(z.string())) }) });

export interface ProjectFacts {
  id: string;
  name: string;
  orgId: string | undefined;
}

export type Access =
  | { kind: 'readable'; project: ProjectFacts }
  /** 403/404: the key does not reach it (or it is gone). */
  | { kind: 'denied' }
  /** 401: the key was revoked; the webhook pauses. */
  | { kind: 'revoked' }
  /** The API did not say (5xx, 429, no answer): ask again later. */
  | { kind: 'unknown'; why: string };

export interface ProjectAccess {
  check: (cacheKey: string, apiKey: string, projectId: string) => Promise<Access>;
}

export function createProjectAccess({ fetchApi, now = Date.now, ttlMs = ACCESS_TTL_MS }: { fetchApi: ApiFetch; now?: () => number; ttlMs?: number }): ProjectAccess {
  const cache = new Map<string, { at: number; access: Access }>();
  return {
    async check(cacheKey, apiKey, projectId) {
      const key = `${cacheKey}\u0000${projectId}`;
      const hit = cache.get(key);
      if (hit && now() - hit.at < ttlMs) return hit.access;
      let access: Access;
      try {
        const response = await fetchApi({
          method: 'GET',
          target: `${API_PREFIX}/projects/${encodeURIComponent(projectId)}`,
          headers: new Headers({ authorization: `Bearer ${apiKey}`, accept: 'application/json' }),
          signal: AbortSignal.timeout(15_000),
        });
        if (response.ok) {
          const parsed = ProjectReadSchema.safeParse(await response.json());
          access = parsed.success
            ? { kind: 'readable', project: { id: parsed.data.project.id, name: parsed.data.project.name, orgId: parsed.data.project.org_id ?? undefined } }
            : { kind: 'unknown', why: 'the project read had an unexpected shape' };
        } else if (response.status === 401) access = { kind: 'revoked' };
        else if (response.status === 403 || response.status === 404) access = { kind: 'denied' };
        else access = { kind: 'unknown', why: `the project read answered HTTP ${response.status}` };
      } catch {
        access = { kind: 'unknown', why: 'the API did not answer the project read' };
      }
      if (access.kind !== 'unknown') cache.set(key, { at: now(), access });
      if (cache.size > 10_000) cache.delete(cache.keys().next().value ?? '');
      return access;
    },
  };
}
