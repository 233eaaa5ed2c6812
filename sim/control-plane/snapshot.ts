// The whole simulated world as plain JSON, and back: what the demo keeps in DATA_DIR so that its history holds still
// across a restart (docs/simulator.md#the-demo-world). An operation id means one operation with one created_at for
// good, and a branch someone made stays. Only state is kept: the background work (operations' ends, availability
// checks, idle suspends) is planned again from the records when the world is restored.
import { z } from 'zod';
import { OPERATION_STATUSES } from '../wire';
import type { OperationRecord } from './operation-lifecycle';
import type { ApiKeyRecord, BranchRecord, EndpointRecord, OrgRecord, ProjectRecord, UserRecord, World } from './world';

export const SNAPSHOT_VERSION = 1;

const nullableMs = z.number().nullable();
const computeState = z.enum(['init', 'active', 'idle']);

const userSchema = z.object({ id: z.string(), name: z.string(), email: z.string(), image: z.string(), createdAtMs: z.number() });
const orgSchema = z.object({
  id: z.string(),
  name: z.string(),
  handle: z.string(),
  plan: z.string(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  roles: z.array(z.tuple([z.string(), z.enum(['admin', 'member'])])),
});
const scopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('personal'), userId: z.string() }),
  z.object({ kind: z.literal('organization'), orgId: z.string() }),
  z.object({ kind: z.literal('project'), orgId: z.string(), projectId: z.string() }),
]);
const apiKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  scope: scopeSchema,
  createdBy: z.string(),
  createdAtMs: z.number(),
  /** base64 of the secret's hash: the secret itself is never kept. */
  secretHash: z.string(),
  lastUsedAtMs: nullableMs,
  lastUsedFromAddr: z.string(),
  revokedAtMs: nullableMs,
  unusableSinceMs: nullableMs,
});
const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  orgId: z.string().nullable(),
  ownerUserId: z.string(),
  regionId: z.string(),
  pgVersion: z.number(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  locked: z.boolean(),
  deletedAtMs: nullableMs,
  cpuUsedSec: z.number(),
  defaultBranchId: z.string(),
  sharedWith: z.array(z.string()),
  quiet: z.boolean(),
});
const branchSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  state: z.enum(['init', 'ready']),
  stateChangedAtMs: z.number(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  deletedAtMs: nullableMs,
  logicalSize: z.number(),
  roles: z.array(z.object({ name: z.string(), protected: z.boolean(), createdAtMs: z.number(), updatedAtMs: z.number() })),
  databases: z.array(z.object({ id: z.number(), name: z.string(), ownerName: z.string(), createdAtMs: z.number(), updatedAtMs: z.number() })),
});
const endpointSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  branchId: z.string(),
  type: z.enum(['read_write', 'read_only']),
  state: computeState,
  pendingState: computeState.nullable(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  lastActiveMs: nullableMs,
  startedAtMs: nullableMs,
  suspendedAtMs: nullableMs,
  suspendTimeoutSeconds: z.number(),
  deletedAtMs: nullableMs,
  activityGeneration: z.number(),
});
const stepSchema = z.object({
  atMs: z.number(),
  status: z.enum(OPERATION_STATUSES),
  failuresCount: z.number(),
  error: z.string().optional(),
  retryAtMs: z.number().optional(),
});
const operationSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  branchId: z.string().optional(),
  endpointId: z.string().optional(),
  action: z.string(),
  createdUs: z.number(),
  steps: z.array(stepSchema).min(1),
  frozen: z.object({ totalDurationMs: z.number() }).optional(),
});

export const worldSnapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  /** When it was taken (the world's clock): operations that ended since have their effects applied on restore. */
  savedAtMs: z.number(),
  users: z.array(userSchema),
  orgs: z.array(orgSchema),
  memberIds: z.array(z.tuple([z.string(), z.string()])),
  apiKeys: z.array(apiKeySchema),
  projects: z.array(projectSchema),
  branches: z.array(branchSchema),
  endpoints: z.array(endpointSchema),
  operations: z.array(operationSchema),
});

export type WorldSnapshot = z.infer<typeof worldSnapshotSchema>;

/**
 * A cheap fingerprint of what a snapshot would hold, to skip writing one when nothing changed: counts, and the last
 * change time of the records that change in place. A key's last use is left out (it changes on every request).
 */
export function worldSignature(world: World): string {
  let changed = 0;
  for (const project of world.projects.values())
    changed += project.updatedAtMs + (project.deletedAtMs ?? 0) + (project.locked ? 1 : 0) + project.sharedWith.size;
  for (const branch of world.branches.values()) changed += branch.updatedAtMs + (branch.deletedAtMs ?? 0);
  for (const endpoint of world.endpoints.values()) changed += endpoint.updatedAtMs + (endpoint.deletedAtMs ?? 0) + endpoint.activityGeneration;
  let revoked = 0;
  for (const key of world.apiKeys.values()) revoked += (key.revokedAtMs ?? 0) + (key.unusableSinceMs ?? 0);
  let roles = 0;
  for (const org of world.orgs.values()) roles += org.roles.size + org.updatedAtMs;
  return [
    world.users.size,
    world.orgs.size,
    roles,
    world.apiKeys.size,
    revoked,
    world.projects.size,
    world.branches.size,
    world.endpoints.size,
    world.operations.size,
    changed,
  ].join(':');
}

/** The world's state now, as JSON-safe data. */
export function snapshotOf(world: World): WorldSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    savedAtMs: world.now(),
    users: [...world.users.values()],
    orgs: [...world.orgs.values()].map((org) => ({ ...org, roles: [...org.roles] })),
    memberIds: [...world.memberIds],
    apiKeys: [...world.apiKeys.values()].map((key) => ({ ...key, secretHash: key.secretHash.toString('base64') })),
    projects: [...world.projects.values()].map(({ operations: _operations, inFlight: _inFlight, ...project }) => ({
      ...project,
      sharedWith: [...project.sharedWith],
    })),
    branches: [...world.branches.values()],
    endpoints: [...world.endpoints.values()],
    operations: [...world.operations.values()],
  };
}

/** Fills an empty world with a snapshot's records (projects' operation lists are rebuilt by `operations.resume`). */
export function restoreRecords(world: World, snapshot: WorldSnapshot): void {
  if (world.users.size > 0 || world.projects.size > 0) throw new Error('restore: the world is not empty');
  for (const user of snapshot.users) world.users.set(user.id, user satisfies UserRecord);
  for (const org of snapshot.orgs) world.orgs.set(org.id, { ...org, roles: new Map(org.roles) } satisfies OrgRecord);
  for (const [key, id] of snapshot.memberIds) world.memberIds.set(key, id);
  for (const key of snapshot.apiKeys) {
    world.apiKeys.set(key.id, { ...key, secretHash: Buffer.from(key.secretHash, 'base64') } satisfies ApiKeyRecord);
  }
  for (const project of snapshot.projects) {
    const record: ProjectRecord = { ...project, sharedWith: new Set(project.sharedWith), operations: [], inFlight: new Set() };
    world.projects.set(project.id, record);
  }
  for (const branch of snapshot.branches) world.branches.set(branch.id, branch satisfies BranchRecord);
  for (const endpoint of snapshot.endpoints) world.endpoints.set(endpoint.id, endpoint satisfies EndpointRecord);
  for (const op of snapshot.operations) world.operations.set(op.id, op satisfies OperationRecord);
}
