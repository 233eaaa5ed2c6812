// What exists in one simulated control plane: its records, and the lookups every module shares. The
// modules beside this file own the behaviour; this one only holds state, the clock and the randomness.
import type { Clock } from '../clock';
import { readableId, type Random } from '../random';
import type { OperationRecord } from './operation-lifecycle';
import type { ApiKeyScope, ComputeState, OrgRole } from './types';

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  image: string;
  createdAtMs: number;
}

export interface OrgRecord {
  id: string;
  name: string;
  handle: string;
  plan: string;
  createdAtMs: number;
  updatedAtMs: number;
  roles: Map<string, OrgRole>;
}

export interface ApiKeyRecord {
  id: number;
  name: string;
  scope: ApiKeyScope;
  createdBy: string;
  createdAtMs: number;
  secretHash: Buffer;
  lastUsedAtMs: number | null;
  lastUsedFromAddr: string;
  revokedAtMs: number | null;
  /** Set when a project-scoped key's project left the organization: the key never works again. */
  unusableSinceMs: number | null;
}

export interface ProjectRecord {
  id: string;
  name: string;
  orgId: string | null;
  ownerUserId: string;
  regionId: string;
  pgVersion: number;
  createdAtMs: number;
  updatedAtMs: number;
  locked: boolean;
  deletedAtMs: number | null;
  cpuUsedSec: number;
  defaultBranchId: string;
  /** Users the project is shared with (GET /projects/shared), besides those its owner or organization gives access. */
  sharedWith: Set<string>;
  /** Sorted oldest first; new operations are almost always appended. */
  operations: OperationRecord[];
  /** Operations that may still block mutations (423); pruned as they end. */
  inFlight: Set<OperationRecord>;
  /** No background availability checks: its history changes only when a client changes something. */
  quiet: boolean;
}

export interface RoleRecord {
  name: string;
  protected: boolean;
  createdAtMs: number;
  updatedAtMs: number;
}

export interface DatabaseRecord {
  id: number;
  name: string;
  ownerName: string;
  createdAtMs: number;
  updatedAtMs: number;
}

export interface BranchRecord {
  id: string;
  projectId: string;
  parentId: string | null;
  name: string;
  state: 'init' | 'ready';
  stateChangedAtMs: number;
  createdAtMs: number;
  updatedAtMs: number;
  deletedAtMs: number | null;
  logicalSize: number;
  roles: RoleRecord[];
  databases: DatabaseRecord[];
}

export interface EndpointRecord {
  id: string;
  projectId: string;
  branchId: string;
  type: 'read_write' | 'read_only';
  state: ComputeState;
  pendingState: ComputeState | null;
  createdAtMs: number;
  updatedAtMs: number;
  lastActiveMs: number | null;
  startedAtMs: number | null;
  suspendedAtMs: number | null;
  suspendTimeoutSeconds: number;
  deletedAtMs: number | null;
  /** Bumped on every activity or state change so a stale idle-suspend check knows to do nothing. */
  activityGeneration: number;
}

export const REGIONS = ['aws-us-east-2', 'aws-us-east-1', 'aws-us-west-2', 'aws-eu-central-1', 'aws-ap-southeast-1', 'azure-eastus2'];

/** `aws-us-east-2` → platform `aws`, proxy host `us-east-2.aws.neon.tech`. */
export function regionParts(regionId: string): { platform: string; host: string } {
  const [platform = 'aws', ...rest] = regionId.split('-');
  return { platform, host: `${rest.join('-')}.${platform}.neon.tech` };
}

export type World = ReturnType<typeof createWorld>;

export function createWorld(clock: Clock, random: Random) {
  const users = new Map<string, UserRecord>();
  const orgs = new Map<string, OrgRecord>();
  const apiKeys = new Map<number, ApiKeyRecord>();
  const projects = new Map<string, ProjectRecord>();
  const branches = new Map<string, BranchRecord>();
  const endpoints = new Map<string, EndpointRecord>();
  const operations = new Map<string, OperationRecord>();
  // A membership's own id (`orgId/userId` → id), made once and kept: the platform's member ids are stable.
  const memberIds = new Map<string, string>();

  const now = () => clock.now();

  return {
    clock,
    random,
    users,
    orgs,
    apiKeys,
    projects,
    branches,
    endpoints,
    operations,
    memberIds,
    now,
    toMs: (t: Date | number | undefined): number => (t === undefined ? now() : typeof t === 'number' ? t : t.getTime()),

    /** A platform-style readable id (`br-aged-salad-637688`) that `taken` does not know yet. */
    uniqueId: (prefix: string, digits: number, taken: (id: string) => boolean): string => {
      for (;;) {
        const id = readableId(random, prefix, digits);
        if (!taken(id)) return id;
      }
    },

    userOrThrow: (id: string): UserRecord => {
      const user = users.get(id);
      if (!user) throw new Error(`unknown user ${id}`);
      return user;
    },

    orgOrThrow: (id: string): OrgRecord => {
      const org = orgs.get(id);
      if (!org) throw new Error(`unknown organization ${id}`);
      return org;
    },

    projectOrThrow: (id: string): ProjectRecord => {
      const project = projects.get(id);
      if (!project || project.deletedAtMs !== null) throw new Error(`unknown project ${id}`);
      return project;
    },

    branchOrThrow: (projectId: string, id: string): BranchRecord => {
      const branch = branches.get(id);
      if (!branch || branch.projectId !== projectId || branch.deletedAtMs !== null) {
        throw new Error(`unknown branch ${id} in project ${projectId}`);
      }
      return branch;
    },

    endpointOrThrow: (id: string): EndpointRecord => {
      const endpoint = endpoints.get(id);
      if (!endpoint || endpoint.deletedAtMs !== null) throw new Error(`unknown endpoint ${id}`);
      return endpoint;
    },

    liveBranches: (projectId: string): BranchRecord[] => {
      return [...branches.values()].filter((b) => b.projectId === projectId && b.deletedAtMs === null);
    },

    liveEndpoints: (filter: (e: EndpointRecord) => boolean): EndpointRecord[] => {
      return [...endpoints.values()].filter((e) => e.deletedAtMs === null && filter(e));
    },
  };
}
