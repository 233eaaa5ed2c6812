// The simulated control plane: accounts, API keys, projects, branches, computes and operations, one
// module each. Everything time-dependent is derived from the injected clock (no timers): every public
// call first brings the world up to the clock's now, so tests drive it with a fake clock and the dev
// server sees operations progress in real time.
import { seededRandom, type Random } from '../random';
import { createAccounts } from './accounts';
import { createApiKeys } from './api-keys';
import { createBranches } from './branches';
import { createComputes } from './computes';
import { createOperations } from './operations';
import { createProjects } from './projects';
import { createScheduler } from './scheduler';
import { restoreRecords, snapshotOf, worldSignature, type WorldSnapshot } from './snapshot';
import type { ControlPlaneOptions } from './types';
import { createWorld } from './world';

export * from './types';
export { worldSnapshotSchema, type WorldSnapshot } from './snapshot';
export { DEFAULT_SUSPEND_TIMEOUT_SECONDS } from './computes';

export type ControlPlane = ReturnType<typeof createControlPlane>;

export function createControlPlane(options: ControlPlaneOptions) {
  const { clock } = options;
  const random: Random = options.random ?? seededRandom(0x5eed);
  const world = createWorld(clock, random);
  const scheduler = createScheduler();
  const accounts = createAccounts(world);
  const operations = createOperations(world, scheduler, accounts, { failureRate: options.failureRate ?? 0.02 });
  const apiKeys = createApiKeys(world, accounts);
  const computes = createComputes(world, scheduler, operations, accounts);
  const branches = createBranches(world, operations, computes, accounts);
  const projects = createProjects(world, { accounts, apiKeys, operations, branches, computes });

  const api = {
    // domain: building the world
    addUser: accounts.addUser,
    addOrganization: accounts.addOrganization,
    addMember: accounts.addMember,
    removeMember: accounts.removeMember,
    issueApiKey: apiKeys.issue,
    revokeApiKey: apiKeys.revoke,
    authenticate: apiKeys.authenticate,
    addProject: projects.add,
    addBranch: branches.add,
    addEndpoint: computes.add,
    addOperation: operations.add,
    pruneOperation: operations.prune,
    transferProject: projects.transfer,
    shareProject: projects.share,
    setProjectLocked: projects.setLocked,
    connect: computes.connect,
    // inspection (no scope checks)
    findOperation: operations.find,
    operationsOf: projects.operationsOf,
    findEndpoint: computes.find,
    findBranch: branches.find,
    findProject: projects.find,
    // request level (scope-checked, throw ApiFailure)
    whoAmI: accounts.whoAmI,
    currentUser: accounts.currentUser,
    listOrganizations: accounts.listOrganizations,
    listMembers: accounts.listMembers,
    listPersonalApiKeys: apiKeys.listPersonal,
    createPersonalApiKey: apiKeys.createPersonal,
    revokePersonalApiKey: apiKeys.revokePersonal,
    listOrgApiKeys: apiKeys.listOrg,
    createOrgApiKey: apiKeys.createOrg,
    revokeOrgApiKey: apiKeys.revokeOrg,
    listProjects: projects.list,
    listSharedProjects: projects.listShared,
    getProject: projects.get,
    createProject: projects.create,
    deleteProject: projects.delete,
    listOperations: operations.list,
    getOperation: operations.get,
    listBranches: branches.list,
    getBranch: branches.get,
    listBranchRoles: branches.roles,
    listBranchDatabases: branches.databases,
    createBranch: branches.create,
    deleteBranch: branches.delete,
    listEndpoints: computes.list,
    startEndpoint: computes.start,
    suspendEndpoint: computes.suspend,
    restartEndpoint: computes.restart,
    // the whole world as data, and back (the demo keeps it across restarts)
    snapshot: (): WorldSnapshot => snapshotOf(world),
    /** Changes whenever a snapshot would hold something new (a key's last use aside): cheap, for deciding to take one. */
    signature: (): string => worldSignature(world),
    /** Only on a control plane nothing was added to yet: the snapshot's world, its background work planned again. */
    restore: (snapshot: WorldSnapshot): void => {
      restoreRecords(world, snapshot);
      operations.resume(snapshot.savedAtMs);
      computes.resume(clock.now());
    },
  };

  return { clock, ...caughtUp(api, () => scheduler.catchUp(clock.now())) };
}

/** Wraps every function of `api` so that it first applies whatever the clock says has happened since the last call. */
function caughtUp<T extends Record<string, (...args: never[]) => unknown>>(api: T, catchUp: () => void): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(api)) {
    wrapped[name] = (...args: never[]) => {
      catchUp();
      return fn(...args);
    };
  }
  return wrapped as T;
}
