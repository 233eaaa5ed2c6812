// Branches, with the Postgres roles and databases each one holds: a root branch starts with `neondb`
// owned by `neondb_owner`, a child starts with copies of its parent's. Created and deleted through
// operations; listed and paged the platform's way.
import { badRequest, conflict, notFound } from '../http-errors';
import { randomInt } from '../random';
import {
  wireTime,
  type WireBranch,
  type WireBranchCreated,
  type WireBranchDetails,
  type WireBranchesPage,
  type WireDatabase,
  type WireOperation,
  type WireRole,
} from '../wire';
import type { Accounts } from './accounts';
import type { Computes } from './computes';
import { finalStep, type OperationRecord } from './operation-lifecycle';
import type { Operations } from './operations';
import { checkLimit, pageAfter } from './pagination';
import type { AddBranchInput, BranchSortField, CreateBranchInput, ListBranchesQuery, Principal } from './types';
import type { BranchRecord, DatabaseRecord, ProjectRecord, RoleRecord, World } from './world';

const DEFAULT_ROLE = 'neondb_owner';
const DEFAULT_DATABASE = 'neondb';

export type Branches = ReturnType<typeof createBranches>;

export function createBranches(world: World, operations: Operations, computes: Computes, accounts: Accounts) {
  const { branches, random, now } = world;
  // Derived from the databases themselves, so a world restored from a snapshot goes on numbering after its last one.
  function nextDatabaseId(): number {
    let last = 1_000_000;
    for (const branch of branches.values()) for (const d of branch.databases) last = Math.max(last, d.id);
    return last + 1;
  }

  function rolesAndDatabasesFor(parent: BranchRecord | undefined, atMs: number): { roles: RoleRecord[]; databases: DatabaseRecord[] } {
    const roles = parent?.roles ?? [{ name: DEFAULT_ROLE, protected: false }];
    const databases = parent?.databases ?? [{ name: DEFAULT_DATABASE, ownerName: DEFAULT_ROLE }];
    const firstId = nextDatabaseId();
    return {
      roles: roles.map((r) => ({ name: r.name, protected: r.protected, createdAtMs: atMs, updatedAtMs: atMs })),
      databases: databases.map((d, i) => ({ id: firstId + i, name: d.name, ownerName: d.ownerName, createdAtMs: atMs, updatedAtMs: atMs })),
    };
  }

  function createRecord(
    project: ProjectRecord,
    fields: { id?: string; name: string; parentId: string | null; createdAtMs: number; state: 'init' | 'ready' },
  ): BranchRecord {
    if (world.liveBranches(project.id).some((b) => b.name === fields.name)) {
      throw conflict(`branch with name "${fields.name}" already exists in project ${project.id}`);
    }
    const parent = fields.parentId === null ? undefined : branches.get(fields.parentId);
    const branch: BranchRecord = {
      id: fields.id ?? world.uniqueId('br', 6, (id) => branches.has(id)),
      projectId: project.id,
      parentId: fields.parentId,
      name: fields.name,
      state: fields.state,
      stateChangedAtMs: fields.createdAtMs,
      createdAtMs: fields.createdAtMs,
      updatedAtMs: fields.createdAtMs,
      deletedAtMs: null,
      logicalSize: randomInt(random, 20, 400) * 1024 * 1024,
      ...rolesAndDatabasesFor(parent, fields.createdAtMs),
    };
    branches.set(branch.id, branch);
    return branch;
  }

  function branchView(branch: BranchRecord): WireBranch {
    const project = world.projects.get(branch.projectId);
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

  function roleViews(branch: BranchRecord): WireRole[] {
    return branch.roles.map((r) => ({
      branch_id: branch.id,
      name: r.name,
      protected: r.protected,
      created_at: wireTime(r.createdAtMs),
      updated_at: wireTime(r.updatedAtMs),
    }));
  }

  function databaseViews(branch: BranchRecord): WireDatabase[] {
    return branch.databases.map((d) => ({
      id: d.id,
      branch_id: branch.id,
      name: d.name,
      owner_name: d.ownerName,
      created_at: wireTime(d.createdAtMs),
      updated_at: wireTime(d.updatedAtMs),
    }));
  }

  function visibleBranch(principal: Principal, projectId: string, branchId: string): BranchRecord {
    const project = accounts.visibleProject(principal, projectId);
    const branch = branches.get(branchId);
    if (!branch || branch.projectId !== project.id || branch.deletedAtMs !== null) throw notFound(`branch ${branchId} not found`);
    return branch;
  }

  /** Sort order of a branch list; ties (and the default order's) go to the older branch, then the id. */
  function branchOrder(sortBy: BranchSortField, sortOrder: 'asc' | 'desc'): (a: BranchRecord, b: BranchRecord) => number {
    const sign = sortOrder === 'asc' ? 1 : -1;
    const primary = (a: BranchRecord, b: BranchRecord): number => {
      if (sortBy === 'name') return a.name.localeCompare(b.name);
      return sortBy === 'created_at' ? a.createdAtMs - b.createdAtMs : a.updatedAtMs - b.updatedAtMs;
    };
    return (a, b) => sign * primary(a, b) || a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }

  // A new branch (or a new project's root branch) is ready once its create operation finishes.
  const markReady = (op: OperationRecord, atMs: number) => {
    const branch = op.branchId === undefined ? undefined : branches.get(op.branchId);
    if (branch?.state !== 'init') return;
    branch.state = 'ready';
    branch.stateChangedAtMs = atMs;
    branch.updatedAtMs = atMs;
  };
  operations.onAction('create_branch', { finished: markReady });
  operations.onAction('create_timeline', { finished: markReady });

  return {
    createRecord,
    view: branchView,
    roleViews,
    databaseViews,

    /** Builder: a ready branch (with a compute if asked), no operation in its history. */
    add: (input: AddBranchInput): { id: string; endpointId: string | null } => {
      const project = world.projectOrThrow(input.projectId);
      const parent = world.branchOrThrow(project.id, input.parentId ?? project.defaultBranchId);
      const createdAtMs = world.toMs(input.createdAt);
      const branch = createRecord(project, { name: input.name, parentId: parent.id, createdAtMs, state: 'ready' });
      let endpointId: string | null = null;
      if (input.compute) {
        const endpoint = computes.create(project, branch, { state: 'idle', createdAtMs });
        computes.setInitialState(endpoint, input.compute, now());
        endpointId = endpoint.id;
      }
      return { id: branch.id, endpointId };
    },

    find: (branchId: string): WireBranch | undefined => {
      const branch = branches.get(branchId);
      return branch && branch.deletedAtMs === null ? branchView(branch) : undefined;
    },

    list: (principal: Principal, projectId: string, query: ListBranchesQuery = {}): WireBranchesPage => {
      const project = accounts.visibleProject(principal, projectId);
      const limit = checkLimit(query.limit, 10_000, Number.POSITIVE_INFINITY);
      const sortBy = query.sortBy ?? 'updated_at';
      const sortOrder = query.sortOrder ?? 'desc';
      let candidates = world.liveBranches(project.id);
      if (query.search) {
        const needle = query.search.toLowerCase();
        candidates = candidates.filter((b) => b.name.toLowerCase().includes(needle) || b.id.includes(needle));
      }
      const order = branchOrder(sortBy, sortOrder);
      candidates.sort(order);
      let anchor: BranchRecord | undefined;
      if (query.cursor !== undefined) {
        anchor = branches.get(query.cursor);
        if (anchor?.projectId !== project.id) throw badRequest(`cursor: ${query.cursor} is not a cursor returned by a previous page`);
      }
      const page = pageAfter(candidates, anchor, order, limit);
      const last = page[page.length - 1];
      const more = last !== undefined && candidates.indexOf(last) < candidates.length - 1;
      return {
        branches: page.map(branchView),
        annotations: {},
        pagination: { ...(more ? { next: last.id } : {}), sort_by: sortBy, sort_order: sortOrder },
      };
    },

    get: (principal: Principal, projectId: string, branchId: string): WireBranchDetails => {
      const branch = visibleBranch(principal, projectId, branchId);
      const at = wireTime(branch.createdAtMs);
      return { branch: branchView(branch), annotation: { object: { type: 'console/branch', id: branch.id }, value: {}, created_at: at, updated_at: at } };
    },

    roles: (principal: Principal, projectId: string, branchId: string): { roles: WireRole[] } => {
      return { roles: roleViews(visibleBranch(principal, projectId, branchId)) };
    },

    databases: (principal: Principal, projectId: string, branchId: string): { databases: WireDatabase[] } => {
      return { databases: databaseViews(visibleBranch(principal, projectId, branchId)) };
    },

    create: (principal: Principal, projectId: string, input: CreateBranchInput = {}): WireBranchCreated => {
      const project = accounts.visibleProject(principal, projectId);
      const requested = input.endpoints ?? [];
      if (requested.filter((e) => e.type === 'read_write').length > 1) {
        throw badRequest('endpoints: a branch can have at most one read_write endpoint');
      }
      const parentId = input.parentId ?? project.defaultBranchId;
      const parent = branches.get(parentId);
      if (!parent || parent.projectId !== project.id || parent.deletedAtMs !== null) {
        throw badRequest(`branch.parent_id: branch ${parentId} not found in project ${project.id}`);
      }
      operations.assertUnlocked(project);
      const t = now();
      const id = world.uniqueId('br', 6, (candidate) => branches.has(candidate));
      // Unnamed branches are named after their id, as on the platform.
      const branch = createRecord(project, { id, name: input.name ?? id, parentId: parent.id, createdAtMs: t, state: 'init' });
      const created = operations.start(project, { action: 'create_branch', createdAtMs: t, branchId: branch.id });
      const ops: OperationRecord[] = [created];
      const newEndpoints = requested.map((request) => {
        const endpoint = computes.create(project, branch, { state: 'init', createdAtMs: t, type: request.type });
        ops.push(computes.startCompute(project, endpoint, { createdAtMs: t, after: finalStep(created).atMs }));
        return endpoint;
      });
      project.updatedAtMs = t;
      return {
        branch: branchView(branch),
        endpoints: newEndpoints.map(computes.view),
        operations: ops.map(operations.view),
        roles: roleViews(branch),
        databases: databaseViews(branch),
      };
    },

    /** Null when the branch is already gone (the platform answers 204). */
    delete: (principal: Principal, projectId: string, branchId: string): { branch: WireBranch; operations: WireOperation[] } | null => {
      const project = accounts.visibleProject(principal, projectId);
      const branch = branches.get(branchId);
      if (!branch || branch.projectId !== project.id || branch.deletedAtMs !== null) return null;
      if (branch.id === project.defaultBranchId) throw conflict(`branch ${branch.id} is the project's default branch and cannot be deleted`);
      if (world.liveBranches(project.id).some((b) => b.parentId === branch.id)) {
        throw conflict(`branch ${branch.id} has child branches; delete them first`);
      }
      operations.assertUnlocked(project);
      const t = now();
      const retired = computes.retireBranchComputes(project, branch, t);
      const timeline = operations.start(project, {
        action: 'delete_timeline',
        createdAtMs: t,
        branchId: branch.id,
        startAs: retired.doneAtMs === undefined ? 'running' : 'scheduling',
        after: retired.doneAtMs,
      });
      const before = branchView(branch);
      branch.deletedAtMs = t;
      project.updatedAtMs = t;
      return { branch: before, operations: [...retired.operations, timeline].map(operations.view) };
    },
  };
}
