// Whether an API key can read a project, asked of the API itself (GET /projects/:id with that key): the
// one check before the archive tells a session anything about a project, and before a webhook's event
// about a project goes out on its maker's key (docs/session-and-security.md: never tell anyone about a
// project their key cannot read). A clear answer is kept for ACCESS_TTL_MS per (who asks, project); an
// answer the API did not give (5xx, 429, no answer) is asked again next time.
import * as z from 'zod/mini';
import { refusal, type ApiReader, type ApiRefusal } from './api-reader';

/** How long a clear answer is kept: a key that loses a project stops seeing it within this. */
export const ACCESS_TTL_MS = 60_000;
/** How long the API may take to answer the check. */
export const ACCESS_TIMEOUT_MS = 15_000;
const MAX_ENTRIES = 10_000;

const ProjectReadSchema = z.object({ project: z.object({ id: z.string(), name: z.string(), org_id: z.optional(z.nullable(z.string())) }) });

export interface ProjectFacts {
  id: string;
  name: string;
  orgId: string | undefined;
}

export type Access =
  | { kind: 'readable'; project: ProjectFacts }
  /** 403/404: the key does not reach it (or it is gone). The API's answer, to pass on as it came. */
  | { kind: 'denied'; answer: ApiRefusal }
  /** 401: the key was refused (revoked or invalid). */
  | { kind: 'revoked'; answer: ApiRefusal }
  /** The API did not say (5xx, 429, no answer, an unreadable project): ask again later. */
  | { kind: 'unknown'; answer: ApiRefusal };

export interface ProjectAccess {
  /** `who`: whose answer it is to keep (a session's id, a webhook's); the key itself is never a cache key. */
  check: (who: string, apiKey: string, projectId: string) => Promise<Access>;
}

function accessOf(answer: Awaited<ReturnType<ApiReader>>): Access {
  if (answer.ok) {
    const parsed = ProjectReadSchema.safeParse(answer.data);
    if (!parsed.success) return { kind: 'unknown', answer: refusal(502, 'The project read had an unexpected shape.') };
    const { id, name, org_id } = parsed.data.project;
    return { kind: 'readable', project: { id, name, orgId: org_id ?? undefined } };
  }
  if (answer.status === 401) return { kind: 'revoked', answer };
  if (answer.status === 403 || answer.status === 404) return { kind: 'denied', answer };
  return { kind: 'unknown', answer };
}

export function createProjectAccess(read: ApiReader, { now = Date.now, ttlMs = ACCESS_TTL_MS }: { now?: () => number; ttlMs?: number } = {}): ProjectAccess {
  const cache = new Map<string, { until: number; access: Access }>();
  return {
    async check(who, apiKey, projectId) {
      const name = `${who}\u0000${projectId}`;
      const kept = cache.get(name);
      if (kept && kept.until > now()) return kept.access;
      const access = accessOf(await read(apiKey, `/projects/${encodeURIComponent(projectId)}`, z.unknown(), { timeoutMs: ACCESS_TIMEOUT_MS }));
      if (access.kind !== 'unknown') {
        if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value ?? '');
        cache.set(name, { until: now() + ttlMs, access });
      }
      return access;
    },
  };
}
