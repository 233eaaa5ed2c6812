import { useInfiniteQuery, useQueries, useQuery } from '@tanstack/react-query';
import { isApiError } from '../../api/api-error';
import { apiKeyQueries } from '../../api/api-keys';
import { authQueries, keyKindOf } from '../../api/auth';
import { loadFailure, type LoadFailure } from '../../api/load-failure';
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
  /** A first read failed: for good, or while the console tries again by itself (`failure.nextTry` says when). */
  | { state: 'error'; failure: LoadFailure; retry: () => void; fetching: boolean }
  | {
      state: 'personal';
      accountId: string;
      organizations: readonly OrgAccess[];
      organizationsFailure: LoadFailure | null;
      organizationsLoading: boolean;
      retryOrganizations: () => void;
      organizationsFetching: boolean;
    }
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

/** A first read that failed, with Retry. */
function failed(failure: LoadFailure, query: { refetch: () => Promise<unknown>; isFetching: boolean }): KeyAccess {
  return { state: 'error', failure, retry: () => void query.refetch(), fetching: query.isFetching };
}

/**
 * What the current key is and what it can reach. `GET /auth` only says user key or organization
 * key (`api_key_org` covers project-scoped keys too). A personal key's role in each of its
 * organizations comes from the organization's member list; an organization key is told from a
 * project-scoped one by its own organization's key list, which refuses (403) project-scoped keys.
 */
export function useKeyAccess(): KeyAccess {
  const authOptions = authQueries.details();
  const auth = useQuery(authOptions);
  const kind = auth.data ? keyKindOf(auth.data) : undefined;
  const accountId = auth.data?.account_id ?? '';
  const organizationsOptions = authQueries.organizations();
  const organizations = useQuery({ ...organizationsOptions, enabled: kind === 'personal' || kind === 'organization' });

  const personalOrgs = kind === 'personal' ? (organizations.data ?? []) : [];
  const memberLists = useQueries({
    queries: personalOrgs.map((org) => authQueries.members(org.id)),
  });
  const ownOrgKeysOptions = apiKeyQueries.organization(accountId);
  const ownOrgKeys = useQuery({ ...ownOrgKeysOptions, enabled: kind === 'organization' });
  const isProjectKey = kind === 'organization' && isForbidden(ownOrgKeys.error);
  const reachable = useInfiniteQuery({ ...projectQueries.list(undefined), enabled: isProjectKey });

  const authFailure = loadFailure(auth, authOptions.queryKey);
  if (authFailure) return failed(authFailure, auth);
  if (auth.data === undefined) return { state: 'loading' };
  const organizationsFailure = loadFailure(organizations, organizationsOptions.queryKey);
  const ownOrgKeysFailure = loadFailure(ownOrgKeys, ownOrgKeysOptions.queryKey);
  const ownOrg = organizations.data?.find((org) => org.id === accountId);

  switch (kind) {
    case 'personal':
      return {
        state: 'personal',
        accountId,
        organizations: personalOrgs.map((org, i) => ({ org, role: roleFrom(memberLists[i] ?? { data: undefined, isPending: true }, accountId) })),
        organizationsFailure,
        organizationsLoading: organizations.data === undefined && organizationsFailure === null,
        retryOrganizations: () => void organizations.refetch(),
        organizationsFetching: organizations.isFetching,
      };
    case 'organization':
      // Its own organization's key list answered (kept through a failed refresh): an organization key.
      if (ownOrgKeys.data !== undefined) return { state: 'organization', orgId: accountId, org: ownOrg };
      if (isProjectKey) {
        if (reachable.isPending) return { state: 'loading' };
        // A project-scoped key reaches exactly one project: the one it is for.
        return { state: 'project', orgId: accountId, org: ownOrg, project: reachable.data?.pages[0]?.projects[0] };
      }
      return ownOrgKeysFailure ? failed(ownOrgKeysFailure, ownOrgKeys) : { state: 'loading' };
    default:
      return { state: 'unknown', authMethod: auth.data.auth_method };
  }
}
