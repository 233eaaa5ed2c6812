// Computes (the platform's endpoints): started and suspended through operations, kept awake by use,
// suspended after their idle timeout, and checked for availability every few minutes in the background.
import { conflict, notFound } from '../http-errors';
import { randomInt } from '../random';
import { wireTime, type WireEndpoint, type WireOperation } from '../wire';
import type { Accounts } from './accounts';
import { finalStep, type OperationRecord } from './operation-lifecycle';
import type { ActionEffects, Operations } from './operations';
import type { Scheduler } from './scheduler';
import type { AddEndpointInput, ComputeState, Principal } from './types';
import { REGIONS, regionParts, type BranchRecord, type EndpointRecord, type ProjectRecord, type World } from './world';

export const DEFAULT_SUSPEND_TIMEOUT_SECONDS = 300;
const CHECK_AVAILABILITY_EVERY_MS: readonly [number, number] = [4 * 60_000, 8 * 60_000];

type EndpointResult = { endpoint: WireEndpoint; operations: WireOperation[] };

export type Computes = ReturnType<typeof createComputes>;

export function createComputes(world: World, scheduler: Scheduler, operations: Operations, accounts: Accounts) {
  const { endpoints, projects, random, now } = world;

  function suspendTimeoutMs(endpoint: EndpointRecord): number | null {
    if (endpoint.suspendTimeoutSeconds < 0) return null;
    return (endpoint.suspendTimeoutSeconds || DEFAULT_SUSPEND_TIMEOUT_SECONDS) * 1000;
  }

  function liveEndpointOf(op: OperationRecord): EndpointRecord | undefined {
    const endpoint = op.endpointId === undefined ? undefined : endpoints.get(op.endpointId);
    return endpoint && endpoint.deletedAtMs === null ? endpoint : undefined;
  }

  function markActive(endpoint: EndpointRecord, atMs: number): void {
    endpoint.state = 'active';
    endpoint.pendingState = null;
    endpoint.startedAtMs = atMs;
    endpoint.updatedAtMs = atMs;
    recordActivity(endpoint, atMs);
  }

  function markIdle(endpoint: EndpointRecord, atMs: number): void {
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
    scheduler.schedule(atMs + timeout, (dueMs) => suspendIfStillIdle(endpoint, generation, dueMs));
  }

  function suspendIfStillIdle(endpoint: EndpointRecord, generation: number, atMs: number): void {
    if (endpoint.deletedAtMs !== null || endpoint.activityGeneration !== generation) return;
    if (endpoint.state !== 'active' || endpoint.pendingState !== null) return;
    const project = projects.get(endpoint.projectId);
    if (!project || project.deletedAtMs !== null) return;
    operations.start(project, { action: 'suspend_compute', createdAtMs: atMs, branchId: endpoint.branchId, endpointId: endpoint.id });
  }

  /** Periodic control-plane load on every branch with a compute. */
  function scheduleAvailabilityChecks(endpoint: EndpointRecord, fromMs: number): void {
    const [min, max] = CHECK_AVAILABILITY_EVERY_MS;
    scheduler.schedule(fromMs + randomInt(random, 0, max), function check(atMs) {
      if (endpoint.deletedAtMs !== null) return;
      const project = projects.get(endpoint.projectId);
      if (!project || project.deletedAtMs !== null) return;
      if (!project.quiet) operations.start(project, { action: 'check_availability', createdAtMs: atMs, branchId: endpoint.branchId, endpointId: endpoint.id });
      scheduler.schedule(atMs + randomInt(random, min, max), check);
    });
  }

  /** A new compute on `branch`; a branch has at most one read-write compute. */
  function create(
    project: ProjectRecord,
    branch: BranchRecord,
    fields: { state: ComputeState; createdAtMs: number; suspendTimeoutSeconds?: number | undefined; type?: 'read_write' | 'read_only' | undefined },
  ): EndpointRecord {
    const type = fields.type ?? 'read_write';
    if (type === 'read_write' && world.liveEndpoints((e) => e.branchId === branch.id && e.type === 'read_write').length > 0) {
      throw conflict(`branch ${branch.id} already has a read-write compute`);
    }
    const endpoint: EndpointRecord = {
      id: world.uniqueId('ep', 6, (id) => endpoints.has(id)),
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

  function setInitialState(endpoint: EndpointRecord, state: 'active' | 'idle', atMs: number): void {
    if (state === 'active') markActive(endpoint, atMs);
    else {
      endpoint.state = 'idle';
      endpoint.suspendedAtMs = atMs;
    }
  }

  function startCompute(project: ProjectRecord, endpoint: EndpointRecord, timing: { createdAtMs: number; after?: number }): OperationRecord {
    endpoint.updatedAtMs = timing.createdAtMs;
    return operations.start(project, {
      action: 'start_compute',
      createdAtMs: timing.createdAtMs,
      branchId: endpoint.branchId,
      endpointId: endpoint.id,
      after: timing.after,
    });
  }

  function suspendCompute(project: ProjectRecord, endpoint: EndpointRecord, createdAtMs: number): OperationRecord {
    endpoint.updatedAtMs = createdAtMs;
    return operations.start(project, { action: 'suspend_compute', createdAtMs, branchId: endpoint.branchId, endpointId: endpoint.id });
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

  function visibleEndpoint(principal: Principal, projectId: string, endpointId: string): { project: ProjectRecord; endpoint: EndpointRecord } {
    const project = accounts.visibleProject(principal, projectId);
    const endpoint = endpoints.get(endpointId);
    if (!endpoint || endpoint.projectId !== project.id || endpoint.deletedAtMs !== null) {
      throw notFound(`endpoint ${endpointId} not found`);
    }
    return { project, endpoint };
  }

  function changeEndpoint(
    principal: Principal,
    projectId: string,
    endpointId: string,
    change: (project: ProjectRecord, endpoint: EndpointRecord) => OperationRecord[],
  ): EndpointResult {
    const { project, endpoint } = visibleEndpoint(principal, projectId, endpointId);
    operations.assertUnlocked(project);
    const ops = change(project, endpoint);
    return { endpoint: endpointView(endpoint), operations: ops.map(operations.view) };
  }

  /** A compute operation promises its state when it starts (pending_state) and reaches it when it ends. */
  function movesComputeTo(state: 'active' | 'idle', reach: (endpoint: EndpointRecord, atMs: number) => void): ActionEffects {
    return {
      started: (op) => {
        const endpoint = liveEndpointOf(op);
        if (endpoint) endpoint.pendingState = state;
      },
      finished: (op, atMs) => {
        const endpoint = liveEndpointOf(op);
        if (endpoint) reach(endpoint, atMs);
      },
    };
  }
  operations.onAction('start_compute', movesComputeTo('active', markActive));
  operations.onAction('suspend_compute', movesComputeTo('idle', markIdle));

  return {
    startCompute,
    view: endpointView,

    /**
     * A world restored from a snapshot (snapshot.ts) plans its background work again: availability checks from now
     * on (none for the time the simulator was down), and an active compute's suspend once idle past its timeout.
     */
    resume: (nowMs: number): void => {
      for (const endpoint of world.liveEndpoints(() => true)) {
        scheduleAvailabilityChecks(endpoint, nowMs);
        if (endpoint.state === 'active' && endpoint.pendingState === null) recordActivity(endpoint, endpoint.lastActiveMs ?? nowMs);
      }
    },

    create,

    /** Builder: a compute that already runs (active) or sleeps (idle), with no operation in its history. */
    setInitialState,

    add: (input: AddEndpointInput): { id: string } => {
      const project = world.projectOrThrow(input.projectId);
      const branch = world.branchOrThrow(project.id, input.branchId);
      const endpoint = create(project, branch, {
        state: 'idle',
        createdAtMs: world.toMs(input.createdAt),
        suspendTimeoutSeconds: input.suspendTimeoutSeconds,
        type: input.type,
      });
      setInitialState(endpoint, input.state ?? 'idle', now());
      return { id: endpoint.id };
    },

    /**
     * A branch is going away: its active computes are suspended first, then all of them are deleted.
     * Returns the suspends and when the last one ends (what must finish before the branch's timeline goes).
     */
    retireBranchComputes: (project: ProjectRecord, branch: BranchRecord, atMs: number): { operations: OperationRecord[]; doneAtMs?: number } => {
      const ops: OperationRecord[] = [];
      let doneAtMs: number | undefined;
      for (const endpoint of world.liveEndpoints((e) => e.branchId === branch.id)) {
        if (endpoint.state === 'active') {
          const suspend = suspendCompute(project, endpoint, atMs);
          ops.push(suspend);
          doneAtMs = Math.max(doneAtMs ?? 0, finalStep(suspend).atMs);
        }
        endpoint.deletedAtMs = atMs;
      }
      return doneAtMs === undefined ? { operations: ops } : { operations: ops, doneAtMs };
    },

    /** A client connects to the compute: it is kept awake, or woken with start_compute when suspended. */
    connect: (endpointId: string): WireOperation[] => {
      const endpoint = world.endpointOrThrow(endpointId);
      const project = world.projectOrThrow(endpoint.projectId);
      if (endpoint.state === 'active' && endpoint.pendingState === null) {
        recordActivity(endpoint, now());
        return [];
      }
      if (endpoint.pendingState !== null || endpoint.state === 'init') return [];
      return [operations.view(startCompute(project, endpoint, { createdAtMs: now() }))];
    },

    find: (endpointId: string): WireEndpoint | undefined => {
      const endpoint = endpoints.get(endpointId);
      return endpoint && endpoint.deletedAtMs === null ? endpointView(endpoint) : undefined;
    },

    list: (principal: Principal, projectId: string): { endpoints: WireEndpoint[] } => {
      const project = accounts.visibleProject(principal, projectId);
      const list = world.liveEndpoints((e) => e.projectId === project.id).sort((a, b) => a.createdAtMs - b.createdAtMs);
      return { endpoints: list.map(endpointView) };
    },

    start: (principal: Principal, projectId: string, endpointId: string): EndpointResult => {
      return changeEndpoint(principal, projectId, endpointId, (project, endpoint) => {
        if (endpoint.state !== 'active') return [startCompute(project, endpoint, { createdAtMs: now() })];
        recordActivity(endpoint, now());
        return [];
      });
    },

    suspend: (principal: Principal, projectId: string, endpointId: string): EndpointResult => {
      return changeEndpoint(principal, projectId, endpointId, (project, endpoint) =>
        endpoint.state === 'active' ? [suspendCompute(project, endpoint, now())] : [],
      );
    },

    restart: (principal: Principal, projectId: string, endpointId: string): EndpointResult => {
      return changeEndpoint(principal, projectId, endpointId, (project, endpoint) => {
        const t = now();
        if (endpoint.state !== 'active') return [startCompute(project, endpoint, { createdAtMs: t })];
        const suspend = suspendCompute(project, endpoint, t);
        return [suspend, startCompute(project, endpoint, { createdAtMs: t, after: finalStep(suspend).atMs })];
      });
    },
  };
}
