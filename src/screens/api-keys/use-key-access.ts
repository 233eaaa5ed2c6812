import { useInfiniteQuery, useQueries, useQuery } from '@tanstack/react-query';
import { isApiError } from '../../api/api-error';
import { apiKeyQueries } from '../../api/api-keys';
import { authQueries, keyKindOf } from '../../api/auth';
import { projectQueries } from '../../api/projects';
import type { Organization, OrganizationMembers, Project } from '../../api/schemas';

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

/** The user's role in an organization, from its member list (the platform names it there). */
function roleFrom(query: { data: OrganizationMembers['members'] | undefined; isPending: boolean }, userId: string): OrgRole {
  if (query.isPending) return 'checking';
  const role = query.data?.find(({ member }) => member.user_id === userId)?.member.role;
  if (role === 'admin') return 'admin';
  // Any other role the platform lists (member, and those some plans add) may not administer keys.
  return role === undefined ? 'unknown' : 'member';
}

/**
 * What the current key is and what it can reach. `GET /auth` only says user key or organization
 * key (`api_key_org` covers project-scoped keys too). A personal key's role in each of its
 * organizations comes from the organization's member list; an organization key is told from a
 * project-scoped one by its own organization's key list, which refuses (403) project-scoped keys.
 */
export function useKeyAccess(): KeyAccess {
  const auth = useQuery(authQueries.details());
  const kind = auth.data ? keyKindOf(auth.data) : undefined;
  const accountId = auth.data?.account_id ?? '';
  const organizations = useQuery({ ...authQueries.organizations(), enabled: kind === 'personal' || kind === 'organization' });

  const personalOrgs = kind === 'personal' ? (organizations.data ?? []) : [];
  const memberLists = useQueries({
    queries: personalOrgs.map((org) => authQueries.members(org.id)),
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
        organizations: personalOrgs.map((org, i) => ({ org, role: roleFrom(memberLists[i] ?? { data: undefined, isPending: true }, accountId) })),
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
