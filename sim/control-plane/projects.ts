// Projects: created with a root branch (and its compute), listed per account or organization, shared
// with users, moved between organizations, and deleted along with everything in them.
import { badRequest, forbidden } from '../http-errors';
import { readableId } from '../random';
import type { WireProject, WireProjectCreated, WireProjectsPage } from '../wire';
import type { Accounts } from './accounts';
import type { ApiKeys } from './api-keys';
import type { Branches } from './branches';
import type { Computes } from './computes';
import { finalStep } from './operation-lifecycle';
import type { Operations } from './operations';
import { checkLimit, pageAfter } from './pagination';
import { projectListItem, projectView } from './project-views';
import type { AddProjectInput, CreateProjectInput, ListProjectsQuery, Principal } from './types';
import { REGIONS, regionParts, type ProjectRecord, type World } from './world';

const PG_VERSIONS = [14, 15, 16, 17, 18];

/** Newest first; the id breaks ties so the order (and so every cursor) is total. */
function compareProjects(a: ProjectRecord, b: ProjectRecord): number {
  return b.createdAtMs - a.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export type Projects = ReturnType<typeof createProjects>;

interface Modules {
  accounts: Accounts;
  apiKeys: ApiKeys;
  operations: Operations;
  branches: Branches;
  computes: Computes;
}

export function createProjects(world: World, { accounts, apiKeys, operations, branches, computes }: Modules) {
  const { projects, now } = world;

  function addRecord(input: AddProjectInput & { createdAtMs: number; branchState: 'init' | 'ready' }): ProjectRecord {
    if (input.id !== undefined && projects.has(input.id)) throw new Error(`project ${input.id} already exists`);
    const org = input.orgId === undefined ? undefined : world.orgOrThrow(input.orgId);
    const ownerUserId = input.ownerId ?? (org ? accounts.firstAdmin(org) : undefined);
    if (ownerUserId === undefined) throw new Error('a personal project needs an ownerId');
    world.userOrThrow(ownerUserId);
    const project: ProjectRecord = {
      id: input.id ?? world.uniqueId('', 6, (id) => projects.has(id)),
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
      sharedWith: new Set(),
      operations: [],
      inFlight: new Set(),
      quiet: input.quiet ?? false,
    };
    projects.set(project.id, project);
    const main = branches.createRecord(project, { name: 'main', parentId: null, createdAtMs: input.createdAtMs, state: input.branchState });
    project.defaultBranchId = main.id;
    return project;
  }

  /** One page of `candidates` in the projects list's order, after the project named by the cursor. */
  function projectsPage(candidates: ProjectRecord[], query: ListProjectsQuery): WireProjectsPage {
    const limit = checkLimit(query.limit, 400, 10);
    let matching = candidates.filter((p) => p.deletedAtMs === null);
    if (query.search) {
      const needle = query.search.toLowerCase();
      matching = matching.filter((p) => p.name.toLowerCase().includes(needle) || p.id.includes(needle));
    }
    matching.sort(compareProjects);
    let anchor: ProjectRecord | undefined;
    if (query.cursor !== undefined) {
      anchor = projects.get(query.cursor);
      if (!anchor) throw badRequest(`cursor: ${query.cursor} is not a project id returned by a previous page`);
    }
    const page = pageAfter(matching, anchor, compareProjects, limit);
    const cursor = page[page.length - 1]?.id ?? query.cursor;
    return {
      projects: page.map((p) => projectListItem(world, p)),
      ...(cursor === undefined ? {} : { pagination: { cursor } }),
      applications: {},
      integrations: {},
    };
  }

  return {
    /** Builder: a ready project with its main branch and, unless `compute: false`, its compute. */
    add: (input: AddProjectInput): { id: string; defaultBranchId: string; endpointId: string | null } => {
      const createdAtMs = world.toMs(input.createdAt);
      const project = addRecord({ ...input, createdAtMs, branchState: 'ready' });
      const compute = input.compute ?? 'idle';
      let endpointId: string | null = null;
      if (compute !== false) {
        const main = world.branchOrThrow(project.id, project.defaultBranchId);
        const endpoint = computes.create(project, main, { state: 'idle', createdAtMs, suspendTimeoutSeconds: input.suspendTimeoutSeconds });
        computes.setInitialState(endpoint, compute, now());
        endpointId = endpoint.id;
      }
      return { id: project.id, defaultBranchId: project.defaultBranchId, endpointId };
    },

    /** Moves a project to another organization (or to its owner's personal account with null). */
    transfer: (projectId: string, toOrgId: string | null): void => {
      const project = world.projectOrThrow(projectId);
      if (toOrgId !== null) world.orgOrThrow(toOrgId);
      if (project.orgId === toOrgId) return;
      apiKeys.retireProjectKeys(projectId);
      project.orgId = toOrgId;
      project.updatedAtMs = now();
    },

    /** Gives a user access to a project outside their account and organizations (GET /projects/shared). */
    share: (projectId: string, userId: string): void => {
      world.projectOrThrow(projectId).sharedWith.add(world.userOrThrow(userId).id);
    },

    setLocked: (projectId: string, isLocked: boolean): void => {
      const project = world.projectOrThrow(projectId);
      project.locked = isLocked;
      project.updatedAtMs = now();
    },

    find: (projectId: string): WireProject | undefined => {
      const project = projects.get(projectId);
      return project && project.deletedAtMs === null ? projectView(world, project) : undefined;
    },

    /** Every operation of the project, newest first (no scope checks: for tests and the seed). */
    operationsOf: (projectId: string) => {
      const project = projects.get(projectId);
      if (!project) throw new Error(`unknown project ${projectId}`);
      return operations.allOf(project);
    },

    /** A personal key lists its own projects, or one organization's with `orgId`; other keys their scope. */
    list: (principal: Principal, query: ListProjectsQuery = {}): WireProjectsPage => {
      const all = [...projects.values()];
      if (principal.kind === 'personal') {
        if (query.orgId === undefined)
          return projectsPage(
            all.filter((p) => p.orgId === null && p.ownerUserId === principal.userId),
            query,
          );
        const org = accounts.requireOrg(query.orgId);
        if (!accounts.isMember(principal.userId, org)) throw forbidden(`you are not a member of organization ${query.orgId}`);
        return projectsPage(
          all.filter((p) => p.orgId === org.id),
          query,
        );
      }
      if (query.orgId !== undefined && query.orgId !== principal.orgId) {
        throw forbidden(`this API key cannot access organization ${query.orgId}`);
      }
      return projectsPage(
        all.filter((p) => accounts.canSee(principal, p)),
        query,
      );
    },

    /** Projects shared with the key's user; keys not tied to a user have none. */
    listShared: (principal: Principal, query: Omit<ListProjectsQuery, 'orgId'> = {}): WireProjectsPage => {
      const userId = principal.kind === 'personal' ? principal.userId : undefined;
      const shared = userId === undefined ? [] : [...projects.values()].filter((p) => p.sharedWith.has(userId));
      return projectsPage(shared, query);
    },

    get: (principal: Principal, projectId: string): { project: WireProject } => {
      return { project: projectView(world, accounts.visibleProject(principal, projectId)) };
    },

    create: (principal: Principal, input: CreateProjectInput): WireProjectCreated => {
      if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot create projects');
      let orgId: string | undefined;
      if (principal.kind === 'organization') {
        if (input.orgId !== undefined && input.orgId !== principal.orgId) throw forbidden(`this API key cannot access organization ${input.orgId}`);
        orgId = principal.orgId;
      } else if (input.orgId !== undefined) {
        const org = accounts.requireOrg(input.orgId);
        if (!accounts.isMember(principal.userId, org)) throw forbidden(`you are not a member of organization ${input.orgId}`);
        orgId = org.id;
      }
      const regionId = input.regionId ?? 'aws-us-east-2';
      if (!REGIONS.includes(regionId)) throw badRequest(`project.region_id: unknown region ${regionId}`);
      const pgVersion = input.pgVersion ?? 17;
      if (!PG_VERSIONS.includes(pgVersion)) throw badRequest(`project.pg_version must be one of ${PG_VERSIONS.join(', ')}`);
      const t = now();
      const id = world.uniqueId('', 6, (candidate) => projects.has(candidate));
      const project = addRecord({
        id,
        name: input.name ?? id,
        ownerId: accounts.actingUserId(principal),
        ...(orgId === undefined ? {} : { orgId }),
        regionId,
        pgVersion,
        createdAtMs: t,
        branchState: 'init',
      });
      const main = world.branchOrThrow(project.id, project.defaultBranchId);
      const endpoint = computes.create(project, main, { state: 'init', createdAtMs: t });
      const timeline = operations.start(project, { action: 'create_timeline', createdAtMs: t, branchId: main.id });
      const start = computes.startCompute(project, endpoint, { createdAtMs: t, after: finalStep(timeline).atMs });
      const { host } = regionParts(regionId);
      const password = `npg_${readableId(world.random, '', 4).replace(/-/g, '')}`;
      const endpointHost = `${endpoint.id}.${host}`;
      return {
        project: projectView(world, project),
        branch: branches.view(main),
        endpoints: [computes.view(endpoint)],
        operations: [timeline, start].map(operations.view),
        roles: branches.roleViews(main),
        databases: branches.databaseViews(main),
        connection_uris: [
          {
            connection_uri: `postgresql://neondb_owner:${password}@${endpointHost}/neondb?sslmode=require`,
            connection_parameters: { database: 'neondb', password, role: 'neondb_owner', host: endpointHost, pooler_host: `${endpoint.id}-pooler.${host}` },
          },
        ],
      };
    },

    delete: (principal: Principal, projectId: string): { project: WireProject } => {
      const project = accounts.visibleProject(principal, projectId);
      if (principal.kind === 'project') throw forbidden('project-scoped API keys cannot delete their project');
      operations.assertUnlocked(project);
      const before = projectView(world, project);
      const t = now();
      project.deletedAtMs = t;
      project.updatedAtMs = t;
      for (const endpoint of world.liveEndpoints((e) => e.projectId === project.id)) endpoint.deletedAtMs = t;
      for (const branch of world.liveBranches(project.id)) branch.deletedAtMs = t;
      return { project: before };
    },
  };
}
