import { useInfiniteQuery, useQueries, useQuery } from '@tanstack/react-query';
import { isApiError } from '../../api/api-error';
import { apiKeyQueries } from '../../api/api-keys';
import { authQueries, keyKindOf } from '../../api/auth';
import { projectQueries } from '../../api/projects';
import type { Organization, Project } from '../../api/schemas';

/** What the signed-in user is in an organization, as far as the API lets us tell. */
export type OrgRole = 'admin' | 'member' | 'checking' | 'unknown';

export interface OrgAccess {
  org: Organization;
  role: OrgRole;
}

export type KeyAccess =
  | { state: 'loading' }
  | { state: 'error'; error: unknown; retry: () => void; retrying: boolean }
  | { state: 'personal'; accountId: string; organizations: readonly OrgAccess[]; organizationsError: unknown; organizationsLoading: boolean; retryOrganizations: () => void }
  | { state: 'organization'; orgId: string; org: Organization | undefined }
  | { state: 'project'; orgId: string; org: Organization | undefined; project: Project | undefined }
  | { state: 'unknown'; authMethod: string };

const isForbidden = (error: unknown) => isApiError(error) && error.status === 403;

function roleFrom(query: { isSuccess: boolean; isPending: boolean; error: unknown }): OrgRole {
  if (query.isSuccess) return 'admin';
  // Listed in /users/me/organizations (so a member), yet refused its key list: not an admin.
  if (isForbidden(query.error)) return 'member';
  return query.isPending ? 'checking' : 'unknown';
}

/**
 * What the current key is and what it can reach. `GET /auth` only says user key or organization
 * key (`api_key_org` covers project-scoped keys too), and no endpoint reports a user's role, so the
 * rest is learnt by asking: an organization's key list answers admins and its own organization key,
 * and refuses (403) members and project-scoped keys.
 */
export function useKeyAccess(): KeyAccess {
  const auth = useQuery(authQueries.details());
  const kind = auth.data ? keyKindOf(auth.data) : undefined;
  const accountId = auth.data?.account_id ?? '';
  const organizations = useQuery({ ...authQueries.organizations(), enabled: kind === 'personal' || kind === 'organization' });

  const personalOrgs = kind === 'personal' ? (organizations.data ?? []) : [];
  const orgKeyLists = useQueries({
    queries: personalOrgs.map((org) => apiKeyQueries.organization(org.id)),
  });
  const ownOrgKeys = useQuery({ ...apiKeyQueries.organization(accountId), enabled: kind === 'organization' });
  const isProjectKey = kind === 'organization' && isForbidden(ownOrgKeys.error);
  const reachable = useInfiniteQuery({ ...projectQueries.list(undefined), enabled: isProjectKey });

  if (auth.isPending) return { state: 'loading' };
  if (auth.isError) {
    return { state: 'error', error: auth.error, retry: () => void auth.refetch(), retrying: auth.isFetching };
  }
  const ownOrg = organizations.data?.find((org) => org.id === accountId);

  switch (kind) {
    case 'personal':
      return {
        state: 'personal',
        accountId,
        organizations: personalOrgs.map((org, i) => ({ org, role: roleFrom(orgKeyLists[i] ?? { isSuccess: false, isPending: true, error: null }) })),
        organizationsError: organizations.error,
        organizationsLoading: organizations.isPending,
        retryOrganizations: () => void organizations.refetch(),
      };
    case 'organization':
      if (ownOrgKeys.isSuccess) return { state: 'organization', orgId: accountId, org: ownOrg };
      if (isProjectKey) {
        if (reachable.isPending) return { state: 'loading' };
        // A project-scoped key reaches exactly one project: the one it is for.
        return { state: 'project', orgId: accountId, org: ownOrg, project: reachable.data?.pages[0]?.projects[0] };
      }
      if (ownOrgKeys.isError) {
        return { state: 'error', error: ownOrgKeys.error, retry: () => void ownOrgKeys.refetch(), retrying: ownOrgKeys.isFetching };
      }
      return { state: 'loading' };
    default:
      return { state: 'unknown', authMethod: auth.data.auth_method };
  }
}
