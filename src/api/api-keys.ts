import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { isApiError } from './api-error';
import { fetchAuthDetails } from './auth';
import { callOf, transportOf } from './query-transport';
import { request, type Call } from './request';
import { ApiKeyCreatedSchema, ApiKeyListSchema, ApiKeyRevokedSchema, type ApiKey, type ApiKeyCreated } from './schemas';

/** Whose keys: the signed-in user's personal keys, or one organization's (incl. project-scoped) keys. */
export type KeyOwner = { kind: 'personal' } | { kind: 'organization'; orgId: string };

export const KEY_NAME_MAX_LENGTH = 64;

function keysPath(owner: KeyOwner): string {
  return owner.kind === 'personal' ? '/api_keys' : `/organizations/${encodeURIComponent(owner.orgId)}/api_keys`;
}

export function fetchApiKeys(owner: KeyOwner, call: Call = {}): Promise<ApiKey[]> {
  return request(keysPath(owner), ApiKeyListSchema, call);
}

export interface CreateApiKeyInput {
  owner: KeyOwner;
  name: string;
  /** Organization keys only: makes the key project-scoped. */
  projectId?: string | undefined;
}

/** The one call that answers with a secret: the result goes to the caller and nowhere else. */
export function createApiKey({ owner, name, projectId }: CreateApiKeyInput, call: Call = {}): Promise<ApiKeyCreated> {
  const body = owner.kind === 'organization' && projectId ? { key_name: name, project_id: projectId } : { key_name: name };
  return request(keysPath(owner), ApiKeyCreatedSchema, { method: 'POST', body, ...call });
}

export async function revokeApiKey(owner: KeyOwner, keyId: number, call: Call = {}): Promise<void> {
  await request(`${keysPath(owner)}/${encodeURIComponent(String(keyId))}`, ApiKeyRevokedSchema, { method: 'DELETE', ...call });
}

/** 1..64 characters (the platform's limit); an error message in plain words, or null when valid. */
export function validateKeyName(name: string): string | null {
  if (name.trim().length === 0) return 'Enter a name for the key.';
  if (name.length > KEY_NAME_MAX_LENGTH) return `The name is ${name.length} characters long; the limit is ${KEY_NAME_MAX_LENGTH}.`;
  return null;
}

function ownerKey(owner: KeyOwner) {
  return owner.kind === 'personal' ? (['personal'] as const) : (['organization', owner.orgId] as const);
}

export const apiKeyQueries = {
  all: () => ['api-keys'] as const,
  /** One owner's keys: `['api-keys', 'personal']` or `['api-keys', 'organization', orgId]`. */
  list: (owner: KeyOwner) =>
    queryOptions({
      queryKey: [...apiKeyQueries.all(), ...ownerKey(owner)] as const,
      queryFn: (context) => fetchApiKeys(owner, callOf(context)),
    }),
  personal: () => apiKeyQueries.list({ kind: 'personal' }),
  organization: (orgId: string) => apiKeyQueries.list({ kind: 'organization', orgId }),
};

function listKey(owner: KeyOwner) {
  return apiKeyQueries.list(owner).queryKey;
}

/** The key record as a list shows it, from the create response (which names its creator by id only). */
function listedKey(created: Omit<ApiKeyCreated, 'key'>): ApiKey {
  return {
    id: created.id,
    name: created.name,
    created_at: created.created_at,
    created_by: { id: created.created_by, name: '', image: '' },
    last_used_at: null,
    last_used_from_addr: '',
    ...(created.project_id === undefined ? {} : { project_id: created.project_id }),
  };
}

type CreateVariables = CreateApiKeyInput & { handOver: (created: ApiKeyCreated) => void };

/** The secret goes to the caller only: the MutationCache holds the record without it, and gcTime 0 drops even that at once. */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  const { mutateAsync, reset, ...mutation } = useMutation({
    mutationKey: [...apiKeyQueries.all(), 'create'],
    gcTime: 0,
    mutationFn: async ({ handOver, ...input }: CreateVariables) => {
      const { key, ...record } = await createApiKey(input, { transport: transportOf(queryClient) });
      handOver({ ...record, key });
      return record;
    },
    onSuccess: (record, { owner }) => {
      queryClient.setQueryData(listKey(owner), (keys) => (keys ? [...keys.filter((k) => k.id !== record.id), listedKey(record)] : keys));
      return queryClient.invalidateQueries({ queryKey: listKey(owner) });
    },
  });

  const create = useCallback(
    async (input: CreateApiKeyInput): Promise<ApiKeyCreated> => {
      let handed: ApiKeyCreated | undefined;
      try {
        await mutateAsync({
          ...input,
          handOver: (created) => {
            handed = created;
          },
        });
      } finally {
        // Detach from the finished mutation so gcTime 0 removes it from the MutationCache right away.
        reset();
      }
      const created = handed;
      handed = undefined;
      if (!created) throw new Error('The key was created but its secret did not arrive.');
      return created;
    },
    [mutateAsync, reset],
  );

  return { ...mutation, create };
}

/** Which key is "in use" is unknowable beforehand (the API never names the key behind a request), so after a revoke we ask: a 401 on our own key now means we revoked it. */
async function ownKeyWasRevoked(call: Call): Promise<boolean> {
  try {
    await fetchAuthDetails(call);
    return false;
  } catch (error) {
    return isApiError(error) && error.isUnauthorized;
  }
}

export interface RevokeApiKeyInput {
  owner: KeyOwner;
  key: Pick<ApiKey, 'id' | 'name'>;
}

export interface RevokeApiKeyResult {
  /** The console's own key is gone: the caller must sign out (the cache is left alone for that). */
  revokedKeyInUse: boolean;
}

function removeFromList(queryClient: QueryClient, owner: KeyOwner, keyId: number): ApiKey[] | undefined {
  const previous = queryClient.getQueryData(listKey(owner));
  if (previous)
    queryClient.setQueryData(
      listKey(owner),
      previous.filter((k) => k.id !== keyId),
    );
  return previous;
}

/** Revokes a key: it leaves the list at once, comes back if the API refuses, and the list is then refetched. */
export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: [...apiKeyQueries.all(), 'revoke'],
    mutationFn: async ({ owner, key }: RevokeApiKeyInput): Promise<RevokeApiKeyResult> => {
      const call = { transport: transportOf(queryClient) };
      await revokeApiKey(owner, key.id, call);
      return { revokedKeyInUse: await ownKeyWasRevoked(call) };
    },
    onMutate: async ({ owner, key }) => {
      await queryClient.cancelQueries({ queryKey: listKey(owner) });
      return { previous: removeFromList(queryClient, owner, key.id) };
    },
    onError: (_error, { owner }, context) => {
      if (context?.previous) queryClient.setQueryData(listKey(owner), context.previous);
    },
    onSettled: (result, _error, { owner }) => {
      // With our own key revoked every refetch would answer 401; the caller signs out instead.
      if (result?.revokedKeyInUse) return;
      return queryClient.invalidateQueries({ queryKey: listKey(owner) });
    },
  });
}
