// API keys: personal, organization and project-scoped. Only a hash of each secret is kept, compared in
// constant time; revocation takes effect on the very next request.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { badRequest, forbidden, notFound } from '../http-errors';
import { wireTime, type ApiKey, type ApiKeyCreated, type WireApiKeyRevoked } from '../wire';
import type { Accounts } from './accounts';
import type { ApiKeyScope, Principal } from './types';
import type { ApiKeyRecord, OrgRecord, World } from './world';

const FIRST_API_KEY_ID = 310_001;
const LAST_USED_FROM_ADDR = '127.0.0.1';

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function generateSecret(): string {
  // Secrets come from the OS CSPRNG, never the seeded simulation randomness.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let secret = '';
  while (secret.length < 64) {
    for (const byte of randomBytes(96)) {
      if (byte < 252 && secret.length < 64) secret += alphabet.charAt(byte % 36);
    }
  }
  return secret;
}

function validateKeyName(name: string): void {
  if (name.length < 1 || name.length > 64) throw badRequest('key_name must be between 1 and 64 characters');
}

export type ApiKeys = ReturnType<typeof createApiKeys>;

export function createApiKeys(world: World, accounts: Accounts) {
  const { apiKeys, users, now } = world;
  // Derived from the keys themselves, so a world restored from a snapshot goes on numbering after its last key.
  const nextApiKeyId = (): number => Math.max(FIRST_API_KEY_ID - 1, ...apiKeys.keys()) + 1;

  function findBySecret(secret: string): ApiKeyRecord | undefined {
    const digest = hashSecret(secret);
    let found: ApiKeyRecord | undefined;
    // Compare against every stored hash in constant time, without stopping early.
    for (const key of apiKeys.values()) {
      if (timingSafeEqual(key.secretHash, digest)) found = key;
    }
    return found;
  }

  function create(scope: ApiKeyScope, name: string, createdBy: string, secret?: string): { record: ApiKeyRecord; secret: string } {
    const plain = secret ?? generateSecret();
    if (plain.length === 0) throw new Error('an API key secret cannot be empty');
    if (findBySecret(plain)) throw new Error('an API key with this secret already exists');
    const record: ApiKeyRecord = {
      id: nextApiKeyId(),
      name,
      scope,
      createdBy,
      createdAtMs: now(),
      secretHash: hashSecret(plain),
      lastUsedAtMs: null,
      lastUsedFromAddr: '',
      revokedAtMs: null,
      unusableSinceMs: null,
    };
    apiKeys.set(record.id, record);
    return { record, secret: plain };
  }

  function listItem(key: ApiKeyRecord): ApiKey {
    const creator = users.get(key.createdBy);
    const item: ApiKey = {
      id: key.id,
      name: key.name,
      created_at: wireTime(key.createdAtMs),
      created_by: { id: key.createdBy, name: creator?.name ?? '', image: creator?.image ?? '' },
      last_used_at: key.lastUsedAtMs === null ? null : wireTime(key.lastUsedAtMs),
      last_used_from_addr: key.lastUsedFromAddr,
    };
    if (key.scope.kind === 'project') item.project_id = key.scope.projectId;
    return item;
  }

  function revokedView(key: ApiKeyRecord): WireApiKeyRevoked {
    const view: WireApiKeyRevoked = {
      id: key.id,
      name: key.name,
      created_at: wireTime(key.createdAtMs),
      created_by: key.createdBy,
      last_used_at: key.lastUsedAtMs === null ? null : wireTime(key.lastUsedAtMs),
      last_used_from_addr: key.lastUsedFromAddr,
      revoked: true,
    };
    if (key.scope.kind === 'project') view.project_id = key.scope.projectId;
    return view;
  }

  function createdView(key: ApiKeyRecord, secret: string): ApiKeyCreated {
    const view: ApiKeyCreated = { id: key.id, key: secret, name: key.name, created_at: wireTime(key.createdAtMs), created_by: key.createdBy };
    if (key.scope.kind === 'project') view.project_id = key.scope.projectId;
    return view;
  }

  function requirePersonal(principal: Principal): Extract<Principal, { kind: 'personal' }> {
    if (principal.kind !== 'personal') throw forbidden('personal API keys can only be managed with a personal API key');
    return principal;
  }

  function orgKeys(org: OrgRecord): ApiKeyRecord[] {
    return [...apiKeys.values()].filter((k) => k.scope.kind !== 'personal' && k.scope.orgId === org.id && k.revokedAtMs === null && k.unusableSinceMs === null);
  }

  function requireNotProjectKey(principal: Principal): void {
    if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot perform organization actions');
  }

  function requireOrgAdmin(principal: Principal, orgId: string): OrgRecord {
    requireNotProjectKey(principal);
    const org = accounts.requireOrg(orgId);
    if (!accounts.isOrgAdmin(principal, org)) throw forbidden(`only admins of organization ${orgId} can manage its API keys`);
    return org;
  }

  return {
    /** Builder: a key with a known (or random) secret, attributed to its user or an organization admin. */
    issue: (scope: ApiKeyScope, name: string, secret?: string): { id: number; secret: string } => {
      let createdBy: string;
      switch (scope.kind) {
        case 'personal':
          createdBy = world.userOrThrow(scope.userId).id;
          break;
        case 'organization':
          createdBy = accounts.firstAdmin(world.orgOrThrow(scope.orgId));
          break;
        case 'project': {
          const org = world.orgOrThrow(scope.orgId);
          const project = world.projectOrThrow(scope.projectId);
          if (project.orgId !== org.id) throw new Error(`project ${project.id} is not in organization ${org.id}`);
          createdBy = accounts.firstAdmin(org);
          break;
        }
      }
      const { record, secret: plain } = create(scope, name, createdBy, secret);
      return { id: record.id, secret: plain };
    },

    revoke: (keyId: number): void => {
      const key = apiKeys.get(keyId);
      if (!key) throw new Error(`unknown API key ${keyId}`);
      key.revokedAtMs ??= now();
    },

    /** Resolves a secret to who it acts as; null for unknown, revoked or unusable keys. Marks the key used. */
    authenticate: (secret: string): Principal | null => {
      const key = findBySecret(secret);
      if (!key || key.revokedAtMs !== null || key.unusableSinceMs !== null) return null;
      let principal: Principal | null = null;
      const scope = key.scope;
      if (scope.kind === 'personal') {
        if (users.has(scope.userId)) principal = { kind: 'personal', keyId: key.id, userId: scope.userId };
      } else if (scope.kind === 'organization') {
        if (world.orgs.has(scope.orgId)) principal = { kind: 'organization', keyId: key.id, orgId: scope.orgId };
      } else {
        const project = world.projects.get(scope.projectId);
        if (project && project.deletedAtMs === null && project.orgId === scope.orgId) {
          principal = { kind: 'project', keyId: key.id, orgId: scope.orgId, projectId: scope.projectId };
        }
      }
      if (principal) {
        key.lastUsedAtMs = now();
        key.lastUsedFromAddr = LAST_USED_FROM_ADDR;
      }
      return principal;
    },

    /** Project-scoped keys belong to the organization their project leaves; they stop working for good. */
    retireProjectKeys: (projectId: string): void => {
      for (const key of apiKeys.values()) {
        if (key.scope.kind === 'project' && key.scope.projectId === projectId) key.unusableSinceMs ??= now();
      }
    },

    listPersonal: (principal: Principal): ApiKey[] => {
      const { userId } = requirePersonal(principal);
      return [...apiKeys.values()].filter((k) => k.scope.kind === 'personal' && k.scope.userId === userId && k.revokedAtMs === null).map(listItem);
    },

    createPersonal: (principal: Principal, keyName: string): ApiKeyCreated => {
      const { userId } = requirePersonal(principal);
      validateKeyName(keyName);
      const { record, secret } = create({ kind: 'personal', userId }, keyName, userId);
      return createdView(record, secret);
    },

    revokePersonal: (principal: Principal, keyId: number): WireApiKeyRevoked => {
      const { userId } = requirePersonal(principal);
      const key = apiKeys.get(keyId);
      if (!key || key.revokedAtMs !== null || key.scope.kind !== 'personal' || key.scope.userId !== userId) {
        throw notFound(`API key ${keyId} not found`);
      }
      key.revokedAtMs = now();
      return revokedView(key);
    },

    listOrg: (principal: Principal, orgId: string): ApiKey[] => {
      return orgKeys(requireOrgAdmin(principal, orgId)).map(listItem);
    },

    createOrg: (principal: Principal, orgId: string, input: { keyName: string; projectId?: string }): ApiKeyCreated => {
      requireNotProjectKey(principal);
      const org = accounts.requireOrg(orgId);
      validateKeyName(input.keyName);
      if (input.projectId === undefined) {
        if (!accounts.isOrgAdmin(principal, org)) throw forbidden(`only admins of organization ${orgId} can create organization API keys`);
        const { record, secret } = create({ kind: 'organization', orgId }, input.keyName, accounts.actingUserId(principal));
        return createdView(record, secret);
      }
      // Project-scoped keys: any member may create one (member-level access to a single project).
      const member = accounts.isOrgAdmin(principal, org) || (principal.kind === 'personal' && accounts.isMember(principal.userId, org));
      if (!member) throw forbidden(`only members of organization ${orgId} can create project-scoped API keys`);
      const project = world.projects.get(input.projectId);
      if (!project || project.deletedAtMs !== null || project.orgId !== org.id) {
        throw badRequest(`project_id: project ${input.projectId} not found in organization ${orgId}`);
      }
      const scope: ApiKeyScope = { kind: 'project', orgId, projectId: project.id };
      const { record, secret } = create(scope, input.keyName, accounts.actingUserId(principal));
      return createdView(record, secret);
    },

    revokeOrg: (principal: Principal, orgId: string, keyId: number): WireApiKeyRevoked => {
      const org = requireOrgAdmin(principal, orgId);
      const key = orgKeys(org).find((k) => k.id === keyId);
      if (!key) throw notFound(`API key ${keyId} not found in organization ${orgId}`);
      key.revokedAtMs = now();
      return revokedView(key);
    },
  };
}
