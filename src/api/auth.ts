import { queryOptions } from '@tanstack/react-query';
import type { KeyKind } from './page-data';
import { AuthDetailsSchema, CurrentUserSchema, OrganizationMembersSchema, OrganizationsResponseSchema, type AuthDetails } from './schemas';
import { callOf } from './query-transport';
import { request, type Call } from './request';

export type { KeyKind };

/** What kind of key answered: `api_key_org` covers organization and project-scoped keys. */
export function keyKindOf(auth: AuthDetails): KeyKind {
  if (auth.auth_method === 'api_key_user') return 'personal';
  if (auth.auth_method === 'api_key_org') return 'organization';
  return 'unknown';
}

/** What the session's key is: resolves with its details, or throws ApiError. */
export function fetchAuthDetails(call: Call = {}): Promise<AuthDetails> {
  return request('/auth', AuthDetailsSchema, call);
}

export const authQueries = {
  details: () =>
    queryOptions({
      queryKey: ['auth', 'details'] as const,
      queryFn: (context) => fetchAuthDetails(callOf(context)),
      staleTime: Infinity,
    }),
  /** Only for personal keys (others get 403): the key's user, with a name to show instead of an id. */
  me: () =>
    queryOptions({
      queryKey: ['auth', 'me'] as const,
      queryFn: (context) => request('/users/me', CurrentUserSchema, callOf(context)),
      staleTime: 5 * 60_000,
    }),
  /** Only meaningful for personal keys: the organizations the user belongs to. */
  organizations: () =>
    queryOptions({
      queryKey: ['auth', 'organizations'] as const,
      queryFn: async (context) => (await request('/users/me/organizations', OrganizationsResponseSchema, callOf(context))).organizations,
      staleTime: 5 * 60_000,
    }),
  /** An organization's members with their roles: what the platform offers to tell an admin from a member. */
  members: (orgId: string) =>
    queryOptions({
      queryKey: ['auth', 'members', orgId] as const,
      queryFn: async (context) => (await request(`/organizations/${encodeURIComponent(orgId)}/members`, OrganizationMembersSchema, callOf(context))).members,
      staleTime: 5 * 60_000,
    }),
};
