// The archive never tells a session about a project its own key cannot read (DESIGN §5): the key reads
// the project through the same backend the proxy uses (GET /projects/:id), and the answer is kept
// briefly per session. A refusal is the API's own answer, passed on as it came ("not found", same status).
import { API_PREFIX, type ApiFetch } from '../http/node-bridge';

export const ACCESS_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export type Access = { allowed: true } | { allowed: false; status: number; body: string; requestId: string | null };

export interface ProjectAccess {
  check: (sid: string, key: string, projectId: string) => Promise<Access>;
}

export function createProjectAccess(fetchApi: ApiFetch, now: () => number = Date.now): ProjectAccess {
  const cache = new Map<string, { until: number; access: Access }>();
  return {
    async check(sid, key, projectId) {
      const name = `${sid}\u0000${projectId}`;
      const kept = cache.get(name);
      if (kept && kept.until > now()) return kept.access;
      const response = await fetchApi({
        method: 'GET',
        target: `${API_PREFIX}/projects/${encodeURIComponent(projectId)}`,
        headers: new Headers({ authorization: `Bearer ${key}`, accept: 'application/json' }),
      });
      const access: Access = response.ok
        ? { allowed: true }
        : { allowed: false, status: response.type === 'error' ? 502 : response.status, body: await response.text().catch(() => ''), requestId: response.headers.get('x-neon-ret-request-id') };
      // Only a clear answer is kept: a 429 or a failure of the API is asked again next time.
      if (response.ok || response.status === 403 || response.status === 404) {
        if (cache.size >= MAX_ENTRIES) cache.clear();
        cache.set(name, { until: now() + ACCESS_TTL_MS, access });
      }
      return access;
    },
  };
}
