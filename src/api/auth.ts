import { queryOptions } from '@tanstack/react-query';
import type { KeyKind } from './page-data';
import { AuthDetailsSchema, OrganizationsResponseSchema, type AuthDetails } from './schemas';
import { request } from './request';

export type { KeyKind };

/** What kind of key answered: `api_key_org` covers organization and project-scoped keys. */
export function keyKindOf(auth: AuthDetails): KeyKind {
  if (auth.auth_method === 'api_key_user') return 'personal';
  if (auth.auth_method === 'api_key_org') return 'organization';
  return 'unknown';
}

/** What the session's key is: resolves with its details, or throws ApiError. */
export function fetchAuthDetails(options: { signal?: AbortSignal } = {}): Promise<AuthDetails> {
  return request('/auth', AuthDetailsSchema, options);
}

export const authQueries = {
  details: () =>
    queryOptions({
      queryKey: ['auth', 'details'] as const,
      queryFn: ({ signal }) => fetchAuthDetails({ signal }),
      staleTime: Infinity,
    }),
  /** Only meaningful for personal keys: the organizations the user belongs to. */
  organizations: () =>
    queryOptions({
      queryKey: ['auth', 'organizations'] as const,
      queryFn: async ({ signal }) => (await request('/users/me/organizations', OrganizationsResponseSchema, { signal })).organizations,
      staleTime: 5 * 60_000,
    }),
};
