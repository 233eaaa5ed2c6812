// The simulated control plane: accounts, API keys, projects, branches, computes and operations.
// Everything time-dependent is derived from the injected clock when state is read (no timers), so
// tests drive it with a fake clock and the dev server sees operations progress in real time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from './clock';
import { badRequest, conflict, forbidden, locked, notFound, tooManyRequests } from './http-errors';
import {
  createdMs,
  finalStep,
  isInProgress,
  lowerBound,
  operationCursor,
  operationView,
  planLiveSteps,
  type OperationRecord,
} from './operation-lifecycle';
import { pick, randomInt, randomUuid, readableId, seededRandom, type Random } from './random';
import { PLATFORM_RATE_LIMITS, createRateLimiter, type RateLimits } from './rate-limiter';
import {
  OPERATION_STATUSES,
  TERMINAL_STATUSES,
  parseCursorTime,
  wireTime,
  type ApiKey,
  type ApiKeyCreated,
  type AuthDetails,
  type OperationStatus,
  type Organization,
  type WireApiKeyRevoked,
  type WireBranch,
  type WireBranchCreated,
  type WireDatabase,
  type WireEndpoint,
  type WireOperation,
  type WireOperationsPage,
  type WireProject,
  type WireProjectCreated,
  type WireProjectListItem,
  type WireProjectsPage,
  type WireRole,
} from './wire';

// ---------------------------------------------------------------------------------------------
// Public types

export type OrgRole = 'admin' | 'member';

export type ApiKeyScope =
  | { kind: 'personal'; userId: string }
  | { kind: 'organization'; orgId: string }
  | { kind: 'project'; orgId: string; projectId: string };

/** Who a request acts as, resolved from its API key. */
export type Principal =
  | { kind: 'personal'; keyId: number; userId: string }
  | { kind: 'organization'; keyId: number; orgId: string }
  | { kind: 'project'; keyId: number; orgId: string; projectId: string };

export type ComputeState = 'init' | 'active' | 'idle';

export interface ControlPlaneOptions {
  clock: Clock;
  /** Source of all simulated randomness (ids, timings, failures); seeded by default. Secrets never use it. */
  random?: () => number;
  /** Share of live operations whose first attempt ends `failed` (then retried). Default 0.02. */
  failureRate?: number;
  /** Per-key request limits; `false` turns limiting off. Default: the platform's 700/min and 40/s per route. */
  rateLimits?: RateLimits | false;
}

export interface AddProjectInput {
  name: string;
  /** Owner of a personal project; for an organization project, who created it (defaults to an admin). */
  ownerId?: string;
  orgId?: string;
  id?: string;
  createdAt?: Date | number;
  regionId?: string;
  pgVersion?: number;
  locked?: boolean;
  /** The default branch's read-write compute: its state, or false for a branch without compute. Default 'idle'. */
  compute?: 'active' | 'idle' | false;
  suspendTimeoutSeconds?: number;
  cpuUsedSec?: number;
}

export interface AddBranchInput {
  projectId: string;
  name: string;
  parentId?: string;
  createdAt?: Date | number;
  /** A read-write compute for the branch: its state, or false (default) for none. */
  compute?: 'active' | 'idle' | false;
}

export interface AddEndpointInput {
  projectId: string;
  branchId: string;
  state?: 'active' | 'idle';
  createdAt?: Date | number;
  /** 0 means the platform default (300 s); -1 never suspends. */
  suspendTimeoutSeconds?: number;
  type?: 'read_write' | 'read_only';
}

export interface AddOperationInput {
  projectId: string;
  action: string;
  branchId?: string;
  endpointId?: string;
  /** Default: now. */
  createdAt?: Date | number;
  /** Freezes the operation at this status (a history entry). Omit for a live lifecycle driven by the clock. */
  status?: OperationStatus;
  /** Live: the initial status (default: `scheduling` for start_compute, `running` otherwise). */
  startAs?: 'scheduling' | 'running';
  /** Frozen: the reported total duration. Live: how long the work runs. */
  durationMs?: number;
  /** Live: force (true) or rule out (false) a failed first attempt; default follows `failureRate`. */
  fail?: boolean;
  /** Frozen failed/error operations: the error text. */
  error?: string;
}

export interface ListProjectsQuery {
  limit?: number;
  cursor?: string;
  search?: string;
  orgId?: string;
}

export interface ListOperationsQuery {
  limit?: number;
  cursor?: string;
}

export interface CreateBranchInput {
  name?: string;
  parentId?: string;
  endpoints?: { type: 'read_write' | 'read_only' }[];
}

export interface CreateProjectInput {
  name?: string;
  regionId?: string;
  pgVersion?: number;
  orgId?: string;
}

// ---------------------------------------------------------------------------------------------
// Internal records

interface UserRecord {
  id: string;
  name: string;
  email: string;
  image: string;
  createdAtMs: number;
}

interface OrgRecord {
  id: string;
  name: string;
  handle: string;
  plan: string;
  createdAtMs: number;
  updatedAtMs: number;
  roles: Map<string, OrgRole>;
}

interface ApiKeyRecord {
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

interface ProjectRecord {
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
  /** Sorted oldest first; new operations are almost always appended. */
  operations: OperationRecord[];
  /** Operations that may still block mutations (423); pruned as they end. */
  inFlight: Set<OperationRecord>;
}

interface BranchRecord {
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
}

interface EndpointRecord {
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

interface ScheduledEvent {
  atMs: number;
  seq: number;
  run: (atMs: number) => void;
}

// ---------------------------------------------------------------------------------------------
// Constants

export const DEFAULT_SUSPEND_TIMEOUT_SECONDS = 300;
const CHECK_AVAILABILITY_EVERY_MS: readonly [number, number] = [4 * 60_000, 8 * 60_000];
const REGIONS = ['aws-us-east-2', 'aws-us-east-1', 'aws-us-west-2', 'aws-eu-central-1', 'aws-ap-southeast-1', 'azure-eastus2'];
const PG_VERSIONS = [14, 15, 16, 17, 18];
const LOCK_EXEMPT_ACTIONS = new Set(['check_availability']);
const FIRST_API_KEY_ID = 310_001;
const LAST_USED_FROM_ADDR = '127.0.0.1';

const FAILURE_MESSAGES: Record<string, readonly string[]> = {
  start_compute: ['compute did not become ready within 60s', 'failed to schedule compute: no capacity in region'],
  suspend_compute: ['failed to suspend compute: pod termination timed out'],
  create_branch: ['timeline creation failed: pageserver unavailable'],
  check_availability: ['availability check failed: safekeeper quorum not reached'],
};
const GENERIC_FAILURES = ['control plane request timed out', 'storage controller returned 503'];

// ---------------------------------------------------------------------------------------------

export type ControlPlane = ReturnType<typeof createControlPlane>;

export function createControlPlane(options: ControlPlaneOptions) {
  const { clock } = options;
  const random: Random = options.random ?? seededRandom(0x5eed);
  const failureRate = options.failureRate ?? 0.02;
  const rateLimiter = options.rateLimits === false ? null : createRateLimiter(options.rateLimits ?? PLATFORM_RATE_LIMITS);

  const users = new Map<string, UserRecord>();
  const orgs = new Map<string, OrgRecord>();
  const apiKeys = new Map<number, ApiKeyRecord>();
  const projects = new Map<string, ProjectRecord>();
  const branches = new Map<string, BranchRecord>();
  const endpoints = new Map<string, EndpointRecord>();
  const operations = new Map<string, OperationRecord>();
  const events: ScheduledEvent[] = [];
  let eventSeq = 0;
  let nextApiKeyId = FIRST_API_KEY_ID;
  let nextDatabaseId = 1_000_001;

  const now = () => clock.now();
  const toMs = (t: Date | number | undefined) => (t === undefined ? now() : typeof t === 'number' ? t : t.getTime());

  // ---- scheduled events (a min-heap ordered by time, then insertion) ------------------------

  function schedule(atMs: number, run: (atMs: number) => void): void {
    events.push({ atMs, seq: eventSeq++, run });
    let i = events.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(events[i], events[parent])) break;
      swap(i, parent);
      i = parent;
    }
  }

  function popEvent(): ScheduledEvent | undefined {
    const top = events[0];
    const last = events.pop();
    if (events.length > 0 && last) {
      events[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < events.length && earlier(events[l], events[smallest])) smallest = l;
        if (r < events.length && earlier(events[r], events[smallest])) smallest = r;
        if (smallest === i) break;
        swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }

  function earlier(a: ScheduledEvent | undefined, b: ScheduledEvent | undefined): boolean {
    if (!a || !b) return false;
    return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
  }

  function swap(i: number, j: number): void {
    const a = events[i];
    const b = events[j];
    if (a && b) {
      events[i] = b;
      events[j] = a;
    }
  }

  /** Applies every effect due by now, in time order; incremental, so each read only does new work. */
  function catchUp(): void {
    const t = now();
    for (let next = events[0]; next && next.atMs <= t; next = events[0]) {
      popEvent();
      next.run(next.atMs);
    }
  }

  // ---- ids ------------------------------------------------------------------------------------

  function uniqueId(prefix: string, digits: number, taken: (id: string) => boolean): string {
    for (;;) {
      const id = readableId(random, prefix, digits);
      if (!taken(id)) return id;
    }
  }

  // ---- lookups --------------------------------------------------------------------------------

  function userOrThrow(id: string): UserRecord {
    const user = users.get(id);
    if (!user) throw new Error(`unknown user ${id}`);
    return user;
  }

  function orgOrThrow(id: string): OrgRecord {
    const org = orgs.get(id);
    if (!org) throw new Error(`unknown organization ${id}`);
    return org;
  }

  function projectOrThrow(id: string): ProjectRecord {
    const project = projects.get(id);
    if (!project || project.deletedAtMs !== null) throw new Error(`unknown project ${id}`);
    return project;
  }

  function branchOrThrow(projectId: string, id: string): BranchRecord {
    const branch = branches.get(id);
    if (!branch || branch.projectId !== projectId || branch.deletedAtMs !== null) {
      throw new Error(`unknown branch ${id} in project ${projectId}`);
    }
    return branch;
  }

  function endpointOrThrow(id: string): EndpointRecord {
    const endpoint = endpoints.get(id);
    if (!endpoint || endpoint.deletedAtMs !== null) throw new Error(`unknown endpoint ${id}`);
    return endpoint;
  }

  function liveBranches(projectId: string): BranchRecord[] {
    return [...branches.values()].filter((b) => b.projectId === projectId && b.deletedAtMs === null);
  }

  function liveEndpoints(filter: (e: EndpointRecord) => boolean): EndpointRecord[] {
    return [...endpoints.values()].filter((e) => e.deletedAtMs === null && filter(e));
  }

  // ---- operations -----------------------------------------------------------------------------

  /** Stores the operation in its project's sorted list, nudging its time by microseconds if taken. */
  function insertOperation(project: ProjectRecord, op: OperationRecord): void {
    const ops = project.operations;
    const last = ops[ops.length - 1];
    // Work started now is newer than everything before it: the sub-millisecond jitter must not reorder
    // operations started one after another within the same millisecond.
    if (last && createdMs(op) >= now() && op.createdUs <= last.createdUs) {
      op.createdUs = last.createdUs + 1;
    }
    if (!last || last.createdUs < op.createdUs) {
      ops.push(op);
    } else {
      let index = lowerBound(ops, op.createdUs);
      while (ops[index]?.createdUs === op.createdUs) {
        op.createdUs += 1;
        index += 1;
      }
      ops.splice(index, 0, op);
    }
    operations.set(op.id, op);
    if (!LOCK_EXEMPT_ACTIONS.has(op.action) && isInProgress(op, now())) project.inFlight.add(op);
  }

  function newOperationRecord(
    project: ProjectRecord,
    fields: { action: string; createdAtMs: number; branchId?: string | undefined; endpointId?: string | undefined },
  ): OperationRecord {
    const op: OperationRecord = {
      id: uniqueOperationId(),
      projectId: project.id,
      action: fields.action,
      // Sub-millisecond jitter: real operations created in the same millisecond still differ in microseconds.
      createdUs: fields.createdAtMs * 1000 + randomInt(random, 0, 999),
      steps: [],
    };
    if (fields.branchId !== undefined) op.branchId = fields.branchId;
    if (fields.endpointId !== undefined) op.endpointId = fields.endpointId;
    return op;
  }

  function uniqueOperationId(): string {
    for (;;) {
      const id = randomUuid(random);
      if (!operations.has(id)) return id;
    }
  }

  function failureFor(action: string, fail: boolean | undefined): { error: string; retryDelayMs: number } | undefined {
    const roll = random();
    const failing = fail ?? roll < failureRate;
    if (!failing) return undefined;
    return { error: pick(random, FAILURE_MESSAGES[action] ?? GENERIC_FAILURES), retryDelayMs: randomInt(random, 5_000, 15_000) };
  }

  interface LiveOperationInput {
    action: string;
    createdAtMs: number;
    branchId?: string | undefined;
    endpointId?: string | undefined;
    startAs?: 'scheduling' | 'running' | undefined;
    /** For a scheduled operation: when its predecessor ends; it runs from then on. */
    after?: number | undefined;
    workMs: number;
    fail?: boolean | undefined;
  }

  /** Creates an operation that moves through its lifecycle as the clock advances, with its side effects. */
  function startOperation(project: ProjectRecord, input: LiveOperationInput): OperationRecord {
    const op = newOperationRecord(project, input);
    const startAs = input.startAs ?? (input.action === 'start_compute' ? 'scheduling' : 'running');
    const failure = failureFor(input.action, input.fail);
    op.steps = planLiveSteps({
      createdMs: createdMs(op),
      startAs,
      runAtMs: input.after ?? createdMs(op) + randomInt(random, 300, 900),
      workMs: input.workMs,
      ...(failure ? { failure } : {}),
    });
    insertOperation(project, op);
    schedule(finalStep(op).atMs, (atMs) => applyFinishEffects(op, atMs));
    return op;
  }

  function applyFinishEffects(op: OperationRecord, atMs: number): void {
    const endpoint = op.endpointId === undefined ? undefined : endpoints.get(op.endpointId);
    const branch = op.branchId === undefined ? undefined : branches.get(op.branchId);
    switch (op.action) {
      case 'start_compute':
        if (endpoint && endpoint.deletedAtMs === null) markComputeActive(endpoint, atMs);
        break;
      case 'suspend_compute':
        if (endpoint && endpoint.deletedAtMs === null) markComputeIdle(endpoint, atMs);
        break;
      case 'create_branch':
      case 'create_timeline':
        if (branch && branch.state === 'init') {
          branch.state = 'ready';
          branch.stateChangedAtMs = atMs;
          branch.updatedAtMs = atMs;
        }
        break;
      default:
        break;
    }
  }

  function operationWorkMs(action: string): number {
    switch (action) {
      case 'create_branch':
      case 'suspend_compute':
      case 'create_timeline':
        return randomInt(random, 2_000, 4_000);
      case 'start_compute':
        return randomInt(random, 3_000, 6_000);
      case 'check_availability':
        return randomInt(random, 1_500, 4_000);
      default:
        return randomInt(random, 1_000, 3_000);
    }
  }

  function inProgressBlocking(project: ProjectRecord): OperationRecord | undefined {
    const t = now();
    for (const op of project.inFlight) {
      if (isInProgress(op, t)) return op;
      project.inFlight.delete(op);
    }
    return undefined;
  }

  /** Mutations wait for the project's user-visible work to finish (the platform answers 423, safe to retry). */
  function assertUnlocked(project: ProjectRecord): void {
    if (project.locked) throw locked(`project ${project.id} is locked`);
    const running = inProgressBlocking(project);
    if (running) {
      throw locked(
        `project already has running operations, scheduling of new ones is prohibited (operation ${running.id}, ${running.action})`,
      );
    }
  }

  // ---- computes ---------------------------------------------------------------------------------

  function suspendTimeoutMs(endpoint: EndpointRecord): number | null {
    if (endpoint.suspendTimeoutSeconds < 0) return null;
    return (endpoint.suspendTimeoutSeconds || DEFAULT_SUSPEND_TIMEOUT_SECONDS) * 1000;
  }

  function markComputeActive(endpoint: EndpointRecord, atMs: number): void {
    endpoint.state = 'active';
    endpoint.pendingState = null;
    endpoint.startedAtMs = atMs;
    endpoint.updatedAtMs = atMs;
    recordActivity(endpoint, atMs);
  }

  function markComputeIdle(endpoint: EndpointRecord, atMs: number): void {
    const project = projects.get(endpoint.projectId);
    // Usage grows with time spent active, at the minimum 0.25 CU.
    if (project && endpoint.state === 'active' && endpoint.startedAtMs !== null) {
      project.cpuUsedSec += Math.round((atMs - endpoint.startedAtMs) / 4000);
    }
    endpoint.state = 'idle';
    endpoint.pendingState = null;
    endpoint.suspendedAtMs = atMs;
    endpoint.updatedAtMs = atMs;
    endpoint.activityGeneration += 1;
  }

  /** Something used the compute: it stays up for another suspend timeout. */
  function recordActivity(endpoint: EndpointRecord, atMs: number): void {
    endpoint.lastActiveMs = atMs;
    endpoint.activityGeneration += 1;
    const timeout = suspendTimeoutMs(endpoint);
    if (timeout === null) return;
    const generation = endpoint.activityGeneration;
    schedule(atMs + timeout, (dueMs) => suspendIfStillIdle(endpoint, generation, dueMs));
  }

  function suspendIfStillIdle(endpoint: EndpointRecord, generation: number, atMs: number): void {
    if (endpoint.deletedAtMs !== null || endpoint.activityGeneration !== generation) return;
    if (endpoint.state !== 'active' || endpoint.pendingState !== null) return;
    const project = projects.get(endpoint.projectId);
    if (!project || project.deletedAtMs !== null) return;
    endpoint.pendingState = 'idle';
    startOperation(project, {
      action: 'suspend_compute',
      createdAtMs: atMs,
      branchId: endpoint.branchId,
      endpointId: endpoint.id,
      workMs: operationWorkMs('suspend_compute'),
    });
  }

  /** Periodic control-plane load on every branch with a compute. */
  function scheduleAvailabilityChecks(endpoint: EndpointRecord, fromMs: number): void {
    const [min, max] = CHECK_AVAILABILITY_EVERY_MS;
    schedule(fromMs + randomInt(random, 0, max), function check(atMs) {
      if (endpoint.deletedAtMs !== null) return;
      const project = projects.get(endpoint.projectId);
      if (!project || project.deletedAtMs !== null) return;
      startOperation(project, {
        action: 'check_availability',
        createdAtMs: atMs,
        branchId: endpoint.branchId,
        endpointId: endpoint.id,
        workMs: operationWorkMs('check_availability'),
      });
      schedule(atMs + randomInt(random, min, max), check);
    });
  }

  function createEndpointRecord(
    project: ProjectRecord,
    branch: BranchRecord,
    fields: { state: ComputeState; createdAtMs: number; suspendTimeoutSeconds?: number | undefined; type?: 'read_write' | 'read_only' | undefined },
  ): EndpointRecord {
    const type = fields.type ?? 'read_write';
    if (type === 'read_write' && liveEndpoints((e) => e.branchId === branch.id && e.type === 'read_write').length > 0) {
      throw conflict(`branch ${branch.id} already has a read-write compute`);
    }
    const endpoint: EndpointRecord = {
      id: uniqueId('ep', 6, (id) => endpoints.has(id)),
      projectId: project.id,
      branchId: branch.id,
      type,
      state: fields.state,
      pendingState: null,
      createdAtMs: fields.createdAtMs,
      updatedAtMs: fields.createdAtMs,
      lastActiveMs: null,
      startedAtMs: null,
      suspendedAtMs: null,
      suspendTimeoutSeconds: fields.suspendTimeoutSeconds ?? DEFAULT_SUSPEND_TIMEOUT_SECONDS,
      deletedAtMs: null,
      activityGeneration: 0,
    };
    endpoints.set(endpoint.id, endpoint);
    scheduleAvailabilityChecks(endpoint, Math.max(fields.createdAtMs, now()));
    return endpoint;
  }

  // ---- accounts and scopes -----------------------------------------------------------------------

  function hashSecret(secret: string): Buffer {
    return createHash('sha256').update(secret, 'utf8').digest();
  }

  function findKeyBySecret(secret: string): ApiKeyRecord | undefined {
    const digest = hashSecret(secret);
    let found: ApiKeyRecord | undefined;
    // Compare against every stored hash in constant time, without stopping early.
    for (const key of apiKeys.values()) {
      if (timingSafeEqual(key.secretHash, digest)) found = key;
    }
    return found;
  }

  function keyOf(principal: Principal): ApiKeyRecord {
    const key = apiKeys.get(principal.keyId);
    if (!key) throw new Error(`unknown key ${principal.keyId}`);
    return key;
  }

  function isMember(userId: string, org: OrgRecord): boolean {
    return org.roles.has(userId);
  }

  function canSee(principal: Principal, project: ProjectRecord): boolean {
    if (project.deletedAtMs !== null) return false;
    switch (principal.kind) {
      case 'personal': {
        if (project.orgId === null) return project.ownerUserId === principal.userId;
        const org = orgs.get(project.orgId);
        return org !== undefined && isMember(principal.userId, org);
      }
      case 'organization':
        return project.orgId === principal.orgId;
      case 'project':
        return project.id === principal.projectId;
    }
  }

  /** A project outside the key's scope is reported as missing, as the platform does. */
  function visibleProject(principal: Principal, projectId: string): ProjectRecord {
    const project = projects.get(projectId);
    if (!project || !canSee(principal, project)) throw notFound(`project ${projectId} not found`);
    return project;
  }

  function isOrgAdmin(principal: Principal, org: OrgRecord): boolean {
    if (principal.kind === 'organization') return principal.orgId === org.id;
    if (principal.kind === 'personal') return org.roles.get(principal.userId) === 'admin';
    return false;
  }

  function requireOrg(orgId: string): OrgRecord {
    const org = orgs.get(orgId);
    if (!org) throw notFound(`organization ${orgId} not found`);
    return org;
  }

  function actingUserId(principal: Principal): string {
    return principal.kind === 'personal' ? principal.userId : keyOf(principal).createdBy;
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

  function createKey(scope: ApiKeyScope, name: string, createdBy: string, secret?: string): { record: ApiKeyRecord; secret: string } {
    const plain = secret ?? generateSecret();
    if (plain.length === 0) throw new Error('an API key secret cannot be empty');
    if (findKeyBySecret(plain)) throw new Error('an API key with this secret already exists');
    const record: ApiKeyRecord = {
      id: nextApiKeyId++,
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

  function firstAdmin(org: OrgRecord): string {
    for (const [userId, role] of org.roles) if (role === 'admin') return userId;
    throw new Error(`organization ${org.id} has no admin`);
  }

  function apiKeyListItem(key: ApiKeyRecord): ApiKey {
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
    const view: ApiKeyCreated = {
      id: key.id,
      key: secret,
      name: key.name,
      created_at: wireTime(key.createdAtMs),
      created_by: key.createdBy,
    };
    if (key.scope.kind === 'project') view.project_id = key.scope.projectId;
    return view;
  }

  function validateKeyName(name: string): void {
    if (name.length < 1 || name.length > 64) throw badRequest('key_name must be between 1 and 64 characters');
  }

  // ---- wire views ---------------------------------------------------------------------------------

  function regionParts(regionId: string): { platform: string; host: string } {
    const [platform = 'aws', ...rest] = regionId.split('-');
    return { platform, host: `${rest.join('-')}.${platform}.neon.tech` };
  }

  function projectListItem(project: ProjectRecord): WireProjectListItem {
    const { platform, host } = regionParts(project.regionId);
    const lastActive = Math.max(
      0,
      ...liveEndpoints((e) => e.projectId === project.id).map((e) => e.lastActiveMs ?? 0),
    );
    const item: WireProjectListItem = {
      id: project.id,
      name: project.name,
      platform_id: platform,
      region_id: project.regionId,
      provisioner: 'k8s-neonvm',
      pg_version: project.pgVersion,
      locked: project.locked,
      cpu_used_sec: project.cpuUsedSec,
      active_time: Math.round(project.cpuUsedSec * 1.5),
      proxy_host: host,
      branch_logical_size_limit: 10_240,
      branch_logical_size_limit_bytes: 10_240 * 1024 * 1024,
      store_passwords: true,
      creation_source: 'console',
      history_retention_seconds: 86_400,
      owner_id: project.orgId ?? project.ownerUserId,
      default_endpoint_settings: { autoscaling_limit_min_cu: 0.25, autoscaling_limit_max_cu: 2, suspend_timeout_seconds: 0 },
      settings: { allowed_ips: { ips: [], protected_branches_only: false }, enable_logical_replication: false },
      created_at: wireTime(project.createdAtMs),
      updated_at: wireTime(project.updatedAtMs),
    };
    if (lastActive > 0) item.compute_last_active_at = wireTime(lastActive);
    if (project.orgId !== null) {
      item.org_id = project.orgId;
      item.org_name = orgs.get(project.orgId)?.name ?? '';
    }
    return item;
  }

  function projectView(project: ProjectRecord): WireProject {
    const t = new Date(now());
    const periodStart = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1);
    const periodEnd = Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1);
    const owner = users.get(project.ownerUserId);
    const org = project.orgId === null ? undefined : orgs.get(project.orgId);
    const item = projectListItem(project);
    return {
      ...item,
      active_time_seconds: item.active_time,
      compute_time_seconds: project.cpuUsedSec,
      written_data_bytes: project.cpuUsedSec * 4096,
      data_transfer_bytes: project.cpuUsedSec * 1024,
      data_storage_bytes_hour: project.cpuUsedSec * 30_000,
      consumption_period_start: wireTime(periodStart),
      consumption_period_end: wireTime(periodEnd),
      owner: {
        email: owner?.email ?? '',
        name: owner?.name ?? '',
        branches_limit: 5000,
        subscription_type: org ? (org.plan === 'scale' ? 'scale_v3' : 'launch_v3') : 'free_v3',
      },
    };
  }

  function branchView(branch: BranchRecord): WireBranch {
    const project = projects.get(branch.projectId);
    const view: WireBranch = {
      id: branch.id,
      project_id: branch.projectId,
      name: branch.name,
      current_state: branch.state,
      state_changed_at: wireTime(branch.stateChangedAtMs),
      logical_size: branch.logicalSize,
      creation_source: 'console',
      default: project?.defaultBranchId === branch.id,
      protected: false,
      init_source: 'parent-data',
      cpu_used_sec: 0,
      active_time_seconds: 0,
      compute_time_seconds: 0,
      written_data_bytes: 0,
      data_transfer_bytes: 0,
      created_at: wireTime(branch.createdAtMs),
      updated_at: wireTime(branch.updatedAtMs),
    };
    if (branch.parentId !== null) {
      view.parent_id = branch.parentId;
      view.parent_lsn = '0/1E19478';
    }
    return view;
  }

  function endpointView(endpoint: EndpointRecord): WireEndpoint {
    const project = projects.get(endpoint.projectId);
    const regionId = project?.regionId ?? REGIONS[0] ?? 'aws-us-east-2';
    const { host } = regionParts(regionId);
    const view: WireEndpoint = {
      id: endpoint.id,
      project_id: endpoint.projectId,
      branch_id: endpoint.branchId,
      host: `${endpoint.id}.${host}`,
      region_id: regionId,
      type: endpoint.type,
      current_state: endpoint.state,
      autoscaling_limit_min_cu: 0.25,
      autoscaling_limit_max_cu: 2,
      suspend_timeout_seconds: endpoint.suspendTimeoutSeconds,
      settings: { pg_settings: {} },
      pooler_enabled: false,
      pooler_mode: 'transaction',
      disabled: false,
      passwordless_access: true,
      creation_source: 'console',
      proxy_host: host,
      provisioner: 'k8s-neonvm',
      created_at: wireTime(endpoint.createdAtMs),
      updated_at: wireTime(endpoint.updatedAtMs),
    };
    if (endpoint.pendingState !== null) view.pending_state = endpoint.pendingState;
    if (endpoint.lastActiveMs !== null) view.last_active = wireTime(endpoint.lastActiveMs);
    if (endpoint.startedAtMs !== null) view.started_at = wireTime(endpoint.startedAtMs);
    if (endpoint.suspendedAtMs !== null) view.suspended_at = wireTime(endpoint.suspendedAtMs);
    return view;
  }

  function organizationView(org: OrgRecord): Organization {
    return {
      id: org.id,
      name: org.name,
      handle: org.handle,
      plan: org.plan,
      managed_by: 'console',
      created_at: wireTime(org.createdAtMs),
      updated_at: wireTime(org.updatedAtMs),
    };
  }

  function rolesAndDatabases(branch: BranchRecord): { roles: WireRole[]; databases: WireDatabase[] } {
    const at = wireTime(branch.createdAtMs);
    return {
      roles: [{ branch_id: branch.id, name: 'neondb_owner', protected: false, created_at: at, updated_at: at }],
      databases: [
        { id: nextDatabaseId++, branch_id: branch.id, name: 'neondb', owner_name: 'neondb_owner', created_at: at, updated_at: at },
      ],
    };
  }

  const view = (op: OperationRecord): WireOperation => operationView(op, now());

  // ---- domain: building the world --------------------------------------------------------------

  function createBranchRecord(
    project: ProjectRecord,
    fields: { id?: string; name: string; parentId: string | null; createdAtMs: number; state: 'init' | 'ready' },
  ): BranchRecord {
    if (liveBranches(project.id).some((b) => b.name === fields.name)) {
      throw conflict(`branch with name "${fields.name}" already exists in project ${project.id}`);
    }
    const branch: BranchRecord = {
      id: fields.id ?? uniqueId('br', 6, (id) => branches.has(id)),
      projectId: project.id,
      parentId: fields.parentId,
      name: fields.name,
      state: fields.state,
      stateChangedAtMs: fields.createdAtMs,
      createdAtMs: fields.createdAtMs,
      updatedAtMs: fields.createdAtMs,
      deletedAtMs: null,
      logicalSize: randomInt(random, 20, 400) * 1024 * 1024,
    };
    branches.set(branch.id, branch);
    return branch;
  }

  function setInitialComputeState(endpoint: EndpointRecord, state: 'active' | 'idle', atMs: number): void {
    if (state === 'active') markComputeActive(endpoint, atMs);
    else {
      endpoint.state = 'idle';
      endpoint.suspendedAtMs = atMs;
    }
  }

  function addProjectRecord(input: AddProjectInput & { createdAtMs: number; branchState: 'init' | 'ready' }): ProjectRecord {
    if (input.id !== undefined && projects.has(input.id)) throw new Error(`project ${input.id} already exists`);
    const org = input.orgId === undefined ? undefined : orgOrThrow(input.orgId);
    const ownerUserId = input.ownerId ?? (org ? firstAdmin(org) : undefined);
    if (ownerUserId === undefined) throw new Error('a personal project needs an ownerId');
    userOrThrow(ownerUserId);
    const project: ProjectRecord = {
      id: input.id ?? uniqueId('', 6, (id) => projects.has(id)),
      name: input.name,
      orgId: input.orgId ?? null,
      ownerUserId,
      regionId: input.regionId ?? 'aws-us-east-2',
      pgVersion: input.pgVersion ?? 17,
      createdAtMs: input.createdAtMs,
      updatedAtMs: input.createdAtMs,
      locked: input.locked ?? false,
      deletedAtMs: null,
      cpuUsedSec: input.cpuUsedSec ?? 0,
      defaultBranchId: '',
      operations: [],
      inFlight: new Set(),
    };
    projects.set(project.id, project);
    const main = createBranchRecord(project, { name: 'main', parentId: null, createdAtMs: input.createdAtMs, state: input.branchState });
    project.defaultBranchId = main.id;
    return project;
  }

  function addUser(input: { name: string; email?: string; id?: string }): { id: string } {
    const id = input.id ?? randomUuid(random);
    if (users.has(id)) throw new Error(`user ${id} already exists`);
    const slug = input.name.toLowerCase().replace(/[^a-z0-9]+/g, '.').replace(/^\.|\.$/g, '');
    users.set(id, {
      id,
      name: input.name,
      email: input.email ?? `${slug || 'user'}@example.com`,
      image: `https://avatars.example.com/${id}.png`,
      createdAtMs: now(),
    });
    return { id };
  }

  function addOrganization(
    name: string,
    members: { admins: string[]; members?: string[]; plan?: string; id?: string },
  ): { id: string } {
    if (members.admins.length === 0) throw new Error('an organization needs at least one admin');
    const id = members.id ?? uniqueId('org', 8, (candidate) => orgs.has(candidate));
    if (orgs.has(id)) throw new Error(`organization ${id} already exists`);
    const roles = new Map<string, OrgRole>();
    for (const userId of members.members ?? []) roles.set(userOrThrow(userId).id, 'member');
    for (const userId of members.admins) roles.set(userOrThrow(userId).id, 'admin');
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    orgs.set(id, { id, name, handle: `${slug}-${id}`, plan: members.plan ?? 'scale', createdAtMs: now(), updatedAtMs: now(), roles });
    return { id };
  }

  function addProject(input: AddProjectInput): { id: string; defaultBranchId: string; endpointId: string | null } {
    catchUp();
    const createdAtMs = toMs(input.createdAt);
    const project = addProjectRecord({ ...input, createdAtMs, branchState: 'ready' });
    const compute = input.compute ?? 'idle';
    let endpointId: string | null = null;
    if (compute !== false) {
      const main = branchOrThrow(project.id, project.defaultBranchId);
      const endpoint = createEndpointRecord(project, main, {
        state: 'idle',
        createdAtMs,
        suspendTimeoutSeconds: input.suspendTimeoutSeconds,
      });
      setInitialComputeState(endpoint, compute, now());
      endpointId = endpoint.id;
    }
    return { id: project.id, defaultBranchId: project.defaultBranchId, endpointId };
  }

  function addBranch(input: AddBranchInput): { id: string; endpointId: string | null } {
    catchUp();
    const project = projectOrThrow(input.projectId);
    const parent = branchOrThrow(project.id, input.parentId ?? project.defaultBranchId);
    const createdAtMs = toMs(input.createdAt);
    const branch = createBranchRecord(project, { name: input.name, parentId: parent.id, createdAtMs, state: 'ready' });
    let endpointId: string | null = null;
    if (input.compute) {
      const endpoint = createEndpointRecord(project, branch, { state: 'idle', createdAtMs });
      setInitialComputeState(endpoint, input.compute, now());
      endpointId = endpoint.id;
    }
    return { id: branch.id, endpointId };
  }

  function addEndpoint(input: AddEndpointInput): { id: string } {
    catchUp();
    const project = projectOrThrow(input.projectId);
    const branch = branchOrThrow(project.id, input.branchId);
    const endpoint = createEndpointRecord(project, branch, {
      state: 'idle',
      createdAtMs: toMs(input.createdAt),
      suspendTimeoutSeconds: input.suspendTimeoutSeconds,
      type: input.type,
    });
    setInitialComputeState(endpoint, input.state ?? 'idle', now());
    return { id: endpoint.id };
  }

  function addOperation(input: AddOperationInput): WireOperation {
    catchUp();
    const project = projectOrThrow(input.projectId);
    const createdAtMs = toMs(input.createdAt);
    if (input.status === undefined) {
      // Live operations act on real objects; history may name branches and computes deleted since.
      if (input.branchId !== undefined) branchOrThrow(project.id, input.branchId);
      if (input.endpointId !== undefined) endpointOrThrow(input.endpointId);
      const endpoint = input.endpointId === undefined ? undefined : endpoints.get(input.endpointId);
      if (endpoint && input.action === 'start_compute') endpoint.pendingState = 'active';
      if (endpoint && input.action === 'suspend_compute') endpoint.pendingState = 'idle';
      return view(
        startOperation(project, {
          action: input.action,
          createdAtMs,
          branchId: input.branchId,
          endpointId: input.endpointId,
          startAs: input.startAs,
          workMs: input.durationMs ?? operationWorkMs(input.action),
          fail: input.fail,
        }),
      );
    }
    const status = input.status;
    if (!OPERATION_STATUSES.includes(status)) throw new Error(`unknown operation status ${status}`);
    const op = newOperationRecord(project, { action: input.action, createdAtMs, branchId: input.branchId, endpointId: input.endpointId });
    const terminal = TERMINAL_STATUSES.has(status);
    const durationMs = terminal ? (input.durationMs ?? randomInt(random, 800, 4_000)) : 0;
    const atMs = createdMs(op) + durationMs;
    const failed = status === 'failed' || status === 'error';
    op.steps = [
      {
        atMs,
        status,
        failuresCount: failed ? 1 : 0,
        ...(failed ? { error: input.error ?? pick(random, FAILURE_MESSAGES[input.action] ?? GENERIC_FAILURES) } : {}),
        ...(status === 'failed' ? { retryAtMs: atMs + 60_000 } : {}),
      },
    ];
    op.frozen = { totalDurationMs: durationMs };
    insertOperation(project, op);
    return view(op);
  }

  // ---- domain: accounts -------------------------------------------------------------------------

  function addMember(orgId: string, userId: string, role: OrgRole = 'member'): void {
    const org = orgOrThrow(orgId);
    org.roles.set(userOrThrow(userId).id, role);
    org.updatedAtMs = now();
  }

  function removeMember(orgId: string, userId: string): void {
    const org = orgOrThrow(orgId);
    org.roles.delete(userId);
    org.updatedAtMs = now();
  }

  function issueApiKey(scope: ApiKeyScope, name: string, secret?: string): { id: number; secret: string } {
    let createdBy: string;
    switch (scope.kind) {
      case 'personal':
        createdBy = userOrThrow(scope.userId).id;
        break;
      case 'organization':
        createdBy = firstAdmin(orgOrThrow(scope.orgId));
        break;
      case 'project': {
        const org = orgOrThrow(scope.orgId);
        const project = projectOrThrow(scope.projectId);
        if (project.orgId !== org.id) throw new Error(`project ${project.id} is not in organization ${org.id}`);
        createdBy = firstAdmin(org);
        break;
      }
    }
    const { record, secret: plain } = createKey(scope, name, createdBy, secret);
    return { id: record.id, secret: plain };
  }

  function revokeApiKey(keyId: number): void {
    const key = apiKeys.get(keyId);
    if (!key) throw new Error(`unknown API key ${keyId}`);
    key.revokedAtMs ??= now();
  }

  /** Resolves a secret to who it acts as; null for unknown, revoked or unusable keys. Marks the key used. */
  function authenticate(secret: string): Principal | null {
    catchUp();
    const key = findKeyBySecret(secret);
    if (!key || key.revokedAtMs !== null || key.unusableSinceMs !== null) return null;
    let principal: Principal | null = null;
    const scope = key.scope;
    if (scope.kind === 'personal') {
      if (users.has(scope.userId)) principal = { kind: 'personal', keyId: key.id, userId: scope.userId };
    } else if (scope.kind === 'organization') {
      if (orgs.has(scope.orgId)) principal = { kind: 'organization', keyId: key.id, orgId: scope.orgId };
    } else {
      const project = projects.get(scope.projectId);
      if (project && project.deletedAtMs === null && project.orgId === scope.orgId) {
        principal = { kind: 'project', keyId: key.id, orgId: scope.orgId, projectId: scope.projectId };
      }
    }
    if (principal) {
      key.lastUsedAtMs = now();
      key.lastUsedFromAddr = LAST_USED_FROM_ADDR;
    }
    return principal;
  }

  /** Moves a project to another organization (or to its owner's personal account with null). */
  function transferProject(projectId: string, toOrgId: string | null): void {
    catchUp();
    const project = projectOrThrow(projectId);
    if (toOrgId !== null) orgOrThrow(toOrgId);
    if (project.orgId === toOrgId) return;
    // Project-scoped keys belong to the organization the project leaves; they stop working for good.
    for (const key of apiKeys.values()) {
      if (key.scope.kind === 'project' && key.scope.projectId === projectId) key.unusableSinceMs ??= now();
    }
    project.orgId = toOrgId;
    project.updatedAtMs = now();
  }

  /** A client connects to the compute: it is kept awake, or woken with start_compute when suspended. */
  function connect(endpointId: string): WireOperation[] {
    catchUp();
    const endpoint = endpointOrThrow(endpointId);
    const project = projectOrThrow(endpoint.projectId);
    if (endpoint.state === 'active' && endpoint.pendingState === null) {
      recordActivity(endpoint, now());
      return [];
    }
    if (endpoint.pendingState !== null || endpoint.state === 'init') return [];
    return [startCompute(project, endpoint, { createdAtMs: now() })].map(view);
  }

  function startCompute(project: ProjectRecord, endpoint: EndpointRecord, timing: { createdAtMs: number; after?: number }): OperationRecord {
    endpoint.pendingState = 'active';
    endpoint.updatedAtMs = timing.createdAtMs;
    return startOperation(project, {
      action: 'start_compute',
      createdAtMs: timing.createdAtMs,
      branchId: endpoint.branchId,
      endpointId: endpoint.id,
      after: timing.after,
      workMs: operationWorkMs('start_compute'),
    });
  }

  function suspendCompute(project: ProjectRecord, endpoint: EndpointRecord, createdAtMs: number): OperationRecord {
    endpoint.pendingState = 'idle';
    endpoint.updatedAtMs = createdAtMs;
    return startOperation(project, {
      action: 'suspend_compute',
      createdAtMs,
      branchId: endpoint.branchId,
      endpointId: endpoint.id,
      workMs: operationWorkMs('suspend_compute'),
    });
  }

  // ---- request level: identity ---------------------------------------------------------------------

  function checkRateLimit(principal: Principal, route: string): void {
    if (!rateLimiter) return;
    const decision = rateLimiter.consume(principal.keyId, route, now());
    if (!decision.allowed) throw tooManyRequests(decision.reason, decision.retryAfterSeconds);
  }

  function whoAmI(principal: Principal): AuthDetails {
    if (principal.kind === 'personal') return { account_id: principal.userId, auth_method: 'api_key_user' };
    return { account_id: principal.orgId, auth_method: 'api_key_org' };
  }

  function listOrganizations(principal: Principal): { organizations: Organization[] } {
    catchUp();
    if (principal.kind !== 'personal') {
      // Not tied to a user: the platform answers with the one organization that owns the key.
      const org = orgs.get(principal.orgId);
      return { organizations: org ? [organizationView(org)] : [] };
    }
    const mine = [...orgs.values()].filter((org) => isMember(principal.userId, org));
    mine.sort((a, b) => a.name.localeCompare(b.name));
    return { organizations: mine.map(organizationView) };
  }

  // ---- request level: API keys -----------------------------------------------------------------------

  function requirePersonal(principal: Principal): Extract<Principal, { kind: 'personal' }> {
    if (principal.kind !== 'personal') throw forbidden('personal API keys can only be managed with a personal API key');
    return principal;
  }

  function listPersonalApiKeys(principal: Principal): ApiKey[] {
    const { userId } = requirePersonal(principal);
    return [...apiKeys.values()]
      .filter((k) => k.scope.kind === 'personal' && k.scope.userId === userId && k.revokedAtMs === null)
      .map(apiKeyListItem);
  }

  function createPersonalApiKey(principal: Principal, keyName: string): ApiKeyCreated {
    const { userId } = requirePersonal(principal);
    validateKeyName(keyName);
    const { record, secret } = createKey({ kind: 'personal', userId }, keyName, userId);
    return createdView(record, secret);
  }

  function revokePersonalApiKey(principal: Principal, keyId: number): WireApiKeyRevoked {
    const { userId } = requirePersonal(principal);
    const key = apiKeys.get(keyId);
    if (!key || key.revokedAtMs !== null || key.scope.kind !== 'personal' || key.scope.userId !== userId) {
      throw notFound(`API key ${keyId} not found`);
    }
    key.revokedAtMs = now();
    return revokedView(key);
  }

  function orgKeys(org: OrgRecord): ApiKeyRecord[] {
    return [...apiKeys.values()].filter(
      (k) => k.scope.kind !== 'personal' && k.scope.orgId === org.id && k.revokedAtMs === null && k.unusableSinceMs === null,
    );
  }

  function requireOrgAdmin(principal: Principal, orgId: string): OrgRecord {
    if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot perform organization actions');
    const org = requireOrg(orgId);
    if (!isOrgAdmin(principal, org)) throw forbidden(`only admins of organization ${orgId} can manage its API keys`);
    return org;
  }

  function listOrgApiKeys(principal: Principal, orgId: string): ApiKey[] {
    return orgKeys(requireOrgAdmin(principal, orgId)).map(apiKeyListItem);
  }

  function createOrgApiKey(principal: Principal, orgId: string, input: { keyName: string; projectId?: string }): ApiKeyCreated {
    if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot perform organization actions');
    const org = requireOrg(orgId);
    validateKeyName(input.keyName);
    if (input.projectId === undefined) {
      if (!isOrgAdmin(principal, org)) throw forbidden(`only admins of organization ${orgId} can create organization API keys`);
      const { record, secret } = createKey({ kind: 'organization', orgId }, input.keyName, actingUserId(principal));
      return createdView(record, secret);
    }
    // Project-scoped keys: any member may create one (member-level access to a single project).
    const member = isOrgAdmin(principal, org) || (principal.kind === 'personal' && isMember(principal.userId, org));
    if (!member) throw forbidden(`only members of organization ${orgId} can create project-scoped API keys`);
    const project = projects.get(input.projectId);
    if (!project || project.deletedAtMs !== null || project.orgId !== org.id) {
      throw badRequest(`project_id: project ${input.projectId} not found in organization ${orgId}`);
    }
    const { record, secret } = createKey(
      { kind: 'project', orgId, projectId: project.id },
      input.keyName,
      actingUserId(principal),
    );
    return createdView(record, secret);
  }

  function revokeOrgApiKey(principal: Principal, orgId: string, keyId: number): WireApiKeyRevoked {
    const org = requireOrgAdmin(principal, orgId);
    const key = orgKeys(org).find((k) => k.id === keyId);
    if (!key) throw notFound(`API key ${keyId} not found in organization ${orgId}`);
    key.revokedAtMs = now();
    return revokedView(key);
  }

  // ---- request level: projects -------------------------------------------------------------------------

  function checkLimit(limit: number | undefined, max: number, fallback: number): number {
    if (limit === undefined) return fallback;
    if (!Number.isInteger(limit) || limit < 1 || limit > max) throw badRequest(`limit must be an integer between 1 and ${max}`);
    return limit;
  }

  function listProjects(principal: Principal, query: ListProjectsQuery = {}): WireProjectsPage {
    catchUp();
    const limit = checkLimit(query.limit, 400, 10);
    let candidates: ProjectRecord[];
    const all = [...projects.values()].filter((p) => p.deletedAtMs === null);
    if (principal.kind === 'personal') {
      if (query.orgId === undefined) {
        candidates = all.filter((p) => p.orgId === null && p.ownerUserId === principal.userId);
      } else {
        const org = requireOrg(query.orgId);
        if (!isMember(principal.userId, org)) throw forbidden(`you are not a member of organization ${query.orgId}`);
        candidates = all.filter((p) => p.orgId === org.id);
      }
    } else {
      if (query.orgId !== undefined && query.orgId !== principal.orgId) {
        throw forbidden(`this API key cannot access organization ${query.orgId}`);
      }
      candidates = all.filter((p) => canSee(principal, p));
    }
    if (query.search) {
      const needle = query.search.toLowerCase();
      candidates = candidates.filter((p) => p.name.toLowerCase().includes(needle) || p.id.includes(needle));
    }
    // Newest first; the cursor is the last id of the previous page, resolved to its position in that order.
    candidates.sort(compareProjects);
    let start = 0;
    if (query.cursor !== undefined) {
      const anchor = projects.get(query.cursor);
      if (!anchor) throw badRequest(`cursor: ${query.cursor} is not a project id returned by a previous page`);
      start = candidates.findIndex((p) => compareProjects(p, anchor) > 0);
      if (start === -1) start = candidates.length;
    }
    const page = candidates.slice(start, start + limit);
    const last = page[page.length - 1];
    const cursor = last?.id ?? query.cursor;
    return {
      projects: page.map(projectListItem),
      ...(cursor === undefined ? {} : { pagination: { cursor } }),
      applications: {},
      integrations: {},
    };
  }

  function compareProjects(a: ProjectRecord, b: ProjectRecord): number {
    return b.createdAtMs - a.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }

  function getProject(principal: Principal, projectId: string): { project: WireProject } {
    catchUp();
    return { project: projectView(visibleProject(principal, projectId)) };
  }

  function createProject(principal: Principal, input: CreateProjectInput): WireProjectCreated {
    catchUp();
    if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot create projects');
    let orgId: string | undefined;
    if (principal.kind === 'organization') {
      if (input.orgId !== undefined && input.orgId !== principal.orgId) {
        throw forbidden(`this API key cannot access organization ${input.orgId}`);
      }
      orgId = principal.orgId;
    } else if (input.orgId !== undefined) {
      const org = requireOrg(input.orgId);
      if (!isMember(principal.userId, org)) throw forbidden(`you are not a member of organization ${input.orgId}`);
      orgId = org.id;
    }
    const regionId = input.regionId ?? 'aws-us-east-2';
    if (!REGIONS.includes(regionId)) throw badRequest(`project.region_id: unknown region ${regionId}`);
    const pgVersion = input.pgVersion ?? 17;
    if (!PG_VERSIONS.includes(pgVersion)) throw badRequest(`project.pg_version must be one of ${PG_VERSIONS.join(', ')}`);
    const t = now();
    const id = uniqueId('', 6, (candidate) => projects.has(candidate));
    const project = addProjectRecord({
      id,
      name: input.name ?? id,
      ownerId: actingUserId(principal),
      ...(orgId === undefined ? {} : { orgId }),
      regionId,
      pgVersion,
      createdAtMs: t,
      branchState: 'init',
    });
    const main = branchOrThrow(project.id, project.defaultBranchId);
    const endpoint = createEndpointRecord(project, main, { state: 'init', createdAtMs: t });
    const timeline = startOperation(project, {
      action: 'create_timeline',
      createdAtMs: t,
      branchId: main.id,
      workMs: operationWorkMs('create_timeline'),
    });
    const start = startCompute(project, endpoint, { createdAtMs: t, after: finalStep(timeline).atMs });
    const { roles, databases } = rolesAndDatabases(main);
    const { host } = regionParts(regionId);
    const password = `npg_${readableId(random, '', 4).replace(/-/g, '')}`;
    return {
      project: projectView(project),
      branch: branchView(main),
      endpoints: [endpointView(endpoint)],
      operations: [timeline, start].map(view),
      roles,
      databases,
      connection_uris: [
        {
          connection_uri: `postgresql://neondb_owner:${password}@${endpoint.id}.${host}/neondb?sslmode=require`,
          connection_parameters: {
            database: 'neondb',
            password,
            role: 'neondb_owner',
            host: `${endpoint.id}.${host}`,
            pooler_host: `${endpoint.id}-pooler.${host}`,
          },
        },
      ],
    };
  }

  function deleteProject(principal: Principal, projectId: string): { project: WireProject } {
    catchUp();
    const project = visibleProject(principal, projectId);
    if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot delete their project');
    assertUnlocked(project);
    const before = projectView(project);
    const t = now();
    project.deletedAtMs = t;
    project.updatedAtMs = t;
    for (const endpoint of liveEndpoints((e) => e.projectId === project.id)) endpoint.deletedAtMs = t;
    for (const branch of liveBranches(project.id)) branch.deletedAtMs = t;
    return { project: before };
  }

  // ---- request level: operations -------------------------------------------------------------------------

  function listOperations(principal: Principal, projectId: string, query: ListOperationsQuery = {}): WireOperationsPage {
    catchUp();
    const project = visibleProject(principal, projectId);
    const limit = checkLimit(query.limit, 1000, 10);
    let end = project.operations.length;
    if (query.cursor !== undefined) {
      const cursorUs = parseCursorTime(query.cursor);
      if (cursorUs === null) {
        throw badRequest('cursor must be a timestamp returned in pagination.cursor, like 2026-11-22T11:59:58.123456Z');
      }
      end = lowerBound(project.operations, cursorUs);
    }
    const page: WireOperation[] = [];
    let last: OperationRecord | undefined;
    for (let i = end - 1; i >= 0 && page.length < limit; i--) {
      const op = project.operations[i];
      if (!op) continue;
      page.push(view(op));
      last = op;
    }
    // An empty page echoes the request's cursor; only a project without any operation has none.
    const cursor = last ? operationCursor(last) : query.cursor;
    return cursor === undefined ? { operations: page } : { operations: page, pagination: { cursor } };
  }

  function getOperation(principal: Principal, projectId: string, operationId: string): { operation: WireOperation } {
    catchUp();
    const project = visibleProject(principal, projectId);
    const op = operations.get(operationId);
    if (!op || op.projectId !== project.id) throw notFound(`operation ${operationId} not found`);
    return { operation: view(op) };
  }

  // ---- request level: branches -------------------------------------------------------------------------

  function listBranches(principal: Principal, projectId: string): { branches: WireBranch[]; annotations: Record<string, never> } {
    catchUp();
    const project = visibleProject(principal, projectId);
    const list = liveBranches(project.id).sort((a, b) => b.updatedAtMs - a.updatedAtMs || a.createdAtMs - b.createdAtMs);
    return { branches: list.map(branchView), annotations: {} };
  }

  function createBranch(principal: Principal, projectId: string, input: CreateBranchInput = {}): WireBranchCreated {
    catchUp();
    const project = visibleProject(principal, projectId);
    const requested = input.endpoints ?? [];
    if (requested.filter((e) => e.type === 'read_write').length > 1) {
      throw badRequest('endpoints: a branch can have at most one read_write endpoint');
    }
    const parentId = input.parentId ?? project.defaultBranchId;
    const parent = branches.get(parentId);
    if (!parent || parent.projectId !== project.id || parent.deletedAtMs !== null) {
      throw badRequest(`branch.parent_id: branch ${parentId} not found in project ${project.id}`);
    }
    assertUnlocked(project);
    const t = now();
    const id = uniqueId('br', 6, (candidate) => branches.has(candidate));
    // Unnamed branches are named after their id, as on the platform.
    const branch = createBranchRecord(project, { id, name: input.name ?? id, parentId: parent.id, createdAtMs: t, state: 'init' });
    const created = startOperation(project, {
      action: 'create_branch',
      createdAtMs: t,
      branchId: branch.id,
      workMs: operationWorkMs('create_branch'),
    });
    const ops: OperationRecord[] = [created];
    const newEndpoints: EndpointRecord[] = [];
    for (const request of requested) {
      const endpoint = createEndpointRecord(project, branch, { state: 'init', createdAtMs: t, type: request.type });
      newEndpoints.push(endpoint);
      ops.push(startCompute(project, endpoint, { createdAtMs: t, after: finalStep(created).atMs }));
    }
    project.updatedAtMs = t;
    return {
      branch: branchView(branch),
      endpoints: newEndpoints.map(endpointView),
      operations: ops.map(view),
      ...rolesAndDatabases(branch),
    };
  }

  /** Null when the branch is already gone (the platform answers 204). */
  function deleteBranch(principal: Principal, projectId: string, branchId: string): { branch: WireBranch; operations: WireOperation[] } | null {
    catchUp();
    const project = visibleProject(principal, projectId);
    const branch = branches.get(branchId);
    if (!branch || branch.projectId !== project.id || branch.deletedAtMs !== null) return null;
    if (branch.id === project.defaultBranchId) throw conflict(`branch ${branch.id} is the project's default branch and cannot be deleted`);
    if (liveBranches(project.id).some((b) => b.parentId === branch.id)) {
      throw conflict(`branch ${branch.id} has child branches; delete them first`);
    }
    assertUnlocked(project);
    const t = now();
    const ops: OperationRecord[] = [];
    let suspendEnd: number | undefined;
    for (const endpoint of liveEndpoints((e) => e.branchId === branch.id)) {
      if (endpoint.state === 'active') {
        const suspend = suspendCompute(project, endpoint, t);
        ops.push(suspend);
        suspendEnd = Math.max(suspendEnd ?? 0, finalStep(suspend).atMs);
      }
      endpoint.deletedAtMs = t;
    }
    ops.push(
      startOperation(project, {
        action: 'delete_timeline',
        createdAtMs: t,
        branchId: branch.id,
        startAs: suspendEnd === undefined ? 'running' : 'scheduling',
        after: suspendEnd,
        workMs: operationWorkMs('delete_timeline'),
      }),
    );
    const before = branchView(branch);
    branch.deletedAtMs = t;
    project.updatedAtMs = t;
    return { branch: before, operations: ops.map(view) };
  }

  // ---- request level: endpoints -------------------------------------------------------------------------

  function listEndpoints(principal: Principal, projectId: string): { endpoints: WireEndpoint[] } {
    catchUp();
    const project = visibleProject(principal, projectId);
    const list = liveEndpoints((e) => e.projectId === project.id).sort((a, b) => a.createdAtMs - b.createdAtMs);
    return { endpoints: list.map(endpointView) };
  }

  function visibleEndpoint(principal: Principal, projectId: string, endpointId: string): { project: ProjectRecord; endpoint: EndpointRecord } {
    const project = visibleProject(principal, projectId);
    const endpoint = endpoints.get(endpointId);
    if (!endpoint || endpoint.projectId !== project.id || endpoint.deletedAtMs !== null) {
      throw notFound(`endpoint ${endpointId} not found`);
    }
    return { project, endpoint };
  }

  type EndpointResult = { endpoint: WireEndpoint; operations: WireOperation[] };

  function startEndpoint(principal: Principal, projectId: string, endpointId: string): EndpointResult {
    catchUp();
    const { project, endpoint } = visibleEndpoint(principal, projectId, endpointId);
    assertUnlocked(project);
    const ops: OperationRecord[] = [];
    if (endpoint.state === 'active') recordActivity(endpoint, now());
    else ops.push(startCompute(project, endpoint, { createdAtMs: now() }));
    return { endpoint: endpointView(endpoint), operations: ops.map(view) };
  }

  function suspendEndpoint(principal: Principal, projectId: string, endpointId: string): EndpointResult {
    catchUp();
    const { project, endpoint } = visibleEndpoint(principal, projectId, endpointId);
    assertUnlocked(project);
    const ops: OperationRecord[] = [];
    if (endpoint.state === 'active') ops.push(suspendCompute(project, endpoint, now()));
    return { endpoint: endpointView(endpoint), operations: ops.map(view) };
  }

  function restartEndpoint(principal: Principal, projectId: string, endpointId: string): EndpointResult {
    catchUp();
    const { project, endpoint } = visibleEndpoint(principal, projectId, endpointId);
    assertUnlocked(project);
    const t = now();
    const ops: OperationRecord[] = [];
    if (endpoint.state === 'active') {
      const suspend = suspendCompute(project, endpoint, t);
      ops.push(suspend, startCompute(project, endpoint, { createdAtMs: t, after: finalStep(suspend).atMs }));
    } else {
      ops.push(startCompute(project, endpoint, { createdAtMs: t }));
    }
    return { endpoint: endpointView(endpoint), operations: ops.map(view) };
  }

  // ---- inspection for tests and the seed (no scope checks) ------------------------------------------------

  function findOperation(operationId: string): WireOperation | undefined {
    catchUp();
    const op = operations.get(operationId);
    return op ? view(op) : undefined;
  }

  /** Every operation of the project, newest first. */
  function operationsOf(projectId: string): WireOperation[] {
    catchUp();
    const project = projects.get(projectId);
    if (!project) throw new Error(`unknown project ${projectId}`);
    return project.operations.map(view).reverse();
  }

  function findEndpoint(endpointId: string): WireEndpoint | undefined {
    catchUp();
    const endpoint = endpoints.get(endpointId);
    return endpoint && endpoint.deletedAtMs === null ? endpointView(endpoint) : undefined;
  }

  function findBranch(branchId: string): WireBranch | undefined {
    catchUp();
    const branch = branches.get(branchId);
    return branch && branch.deletedAtMs === null ? branchView(branch) : undefined;
  }

  function findProject(projectId: string): WireProject | undefined {
    catchUp();
    const project = projects.get(projectId);
    return project && project.deletedAtMs === null ? projectView(project) : undefined;
  }

  function setProjectLocked(projectId: string, isLocked: boolean): void {
    const project = projectOrThrow(projectId);
    project.locked = isLocked;
    project.updatedAtMs = now();
  }

  return {
    clock,
    // domain: building the world
    addUser,
    addOrganization,
    addMember,
    removeMember,
    issueApiKey,
    revokeApiKey,
    authenticate,
    addProject,
    addBranch,
    addEndpoint,
    addOperation,
    transferProject,
    setProjectLocked,
    connect,
    // inspection
    findOperation,
    operationsOf,
    findEndpoint,
    findBranch,
    findProject,
    // request level (scope-checked, throw ApiFailure)
    checkRateLimit,
    whoAmI,
    listOrganizations,
    listPersonalApiKeys,
    createPersonalApiKey,
    revokePersonalApiKey,
    listOrgApiKeys,
    createOrgApiKey,
    revokeOrgApiKey,
    listProjects,
    getProject,
    createProject,
    deleteProject,
    listOperations,
    getOperation,
    listBranches,
    createBranch,
    deleteBranch,
    listEndpoints,
    startEndpoint,
    suspendEndpoint,
    restartEndpoint,
  };
}

