// The role each call to the platform's API needs in team sign-in (docs/team.md, "What each role may do"), by method
// and path: the server enforces it on the forwarded /api/v2 calls; the page mirrors it on its controls. Reads are
// the viewers'; computes and branches the operators'; API keys and anything else that changes the admins'.
import { refusalMessage, type Role } from './roles';

export interface ApiRule {
  role: Role;
  /** What the audit trail calls it ("Restart compute"); undefined for a read, which is not recorded. */
  action?: string;
  /** What the refusal says a role can do ("restart computes"). */
  may: string;
  projectId?: string;
  /** What it acts on ("compute ep-1 of project p-1"). */
  target: string;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const segment = (text: string | undefined) => {
  try {
    return decodeURIComponent(text ?? '');
  } catch {
    return text ?? '';
  }
};

/** The rule for `method` on `path` (the API's path, after /api/v2, without the query). */
export function apiRuleOf(method: string, path: string): ApiRule {
  const verb = method.toUpperCase();
  const parts = path.split('/').filter(Boolean);
  const projectId = parts[0] === 'projects' && parts[1] ? segment(parts[1]) : undefined;
  const inProject = projectId === undefined ? {} : { projectId };
  if (READS.has(verb)) return { role: 'viewer', may: 'read', target: path, ...inProject };
  // /projects/:p/endpoints/:e/(start|suspend|restart)
  if (verb === 'POST' && parts.length === 5 && parts[0] === 'projects' && parts[2] === 'endpoints') {
    const act = parts[4];
    const target = `compute ${segment(parts[3])} of project ${projectId ?? ''}`;
    if (act === 'restart') return { role: 'operator', action: 'Restart compute', may: 'restart computes', target, ...inProject };
    if (act === 'start') return { role: 'operator', action: 'Start compute', may: 'start computes', target, ...inProject };
    if (act === 'suspend') return { role: 'operator', action: 'Suspend compute', may: 'suspend computes', target, ...inProject };
  }
  if (parts[0] === 'projects' && parts[2] === 'branches') {
    if (verb === 'POST' && parts.length === 3)
      return { role: 'operator', action: 'Create branch', may: 'create branches', target: `project ${projectId ?? ''}`, ...inProject };
    if (verb === 'DELETE' && parts.length === 4)
      return {
        role: 'operator',
        action: 'Delete branch',
        may: 'delete branches',
        target: `branch ${segment(parts[3])} of project ${projectId ?? ''}`,
        ...inProject,
      };
  }
  if (parts[0] === 'api_keys') {
    const action = verb === 'POST' ? 'Create API key' : verb === 'DELETE' ? 'Revoke API key' : `${verb} API key`;
    return { role: 'admin', action, may: 'manage API keys', target: parts[1] ? `API key ${segment(parts[1])}` : 'API keys' };
  }
  return { role: 'admin', action: `${verb} ${path}`, may: 'make this change', target: path, ...inProject };
}

/** The refusal of a call beyond a person's role, naming the role it needs. */
export const apiRefusal = (rule: Pick<ApiRule, 'role' | 'may'>) => refusalMessage(rule.role, rule.may);
