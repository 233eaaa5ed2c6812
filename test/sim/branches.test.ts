// Branches through the control plane's public API: the roles and databases each holds, reading one
// branch within a key's scope, and the list's paging, sorting and search.
import { describe, expect, it } from 'vitest';
import { MINUTE, START, createSim, failureOf } from './support';

function withProject() {
  const sim = createSim();
  const owner = sim.personalUser();
  const project = sim.cp.addProject({ name: 'branchy', ownerId: owner.userId, compute: false, createdAt: START.getTime() - 60 * MINUTE });
  return { ...sim, owner, project };
}

describe('roles and databases', () => {
  it('gives a new project neondb owned by neondb_owner on its default branch', () => {
    const { cp, owner, project } = withProject();
    const main = project.defaultBranchId;
    expect(cp.listBranchRoles(owner.principal, project.id, main).roles).toEqual([
      expect.objectContaining({ branch_id: main, name: 'neondb_owner', protected: false }),
    ]);
    expect(cp.listBranchDatabases(owner.principal, project.id, main).databases).toEqual([
      expect.objectContaining({ branch_id: main, name: 'neondb', owner_name: 'neondb_owner' }),
    ]);
  });

  it('creates a branch with copies of its parent’s roles and databases, the same ones it lists later', () => {
    const { cp, owner, project } = withProject();
    const created = cp.createBranch(owner.principal, project.id, { name: 'feature' });
    const databases = cp.listBranchDatabases(owner.principal, project.id, created.branch.id).databases;
    expect(created.databases).toEqual(databases);
    expect(created.roles).toEqual(cp.listBranchRoles(owner.principal, project.id, created.branch.id).roles);
    expect(databases.map((d) => [d.name, d.owner_name, d.branch_id])).toEqual([['neondb', 'neondb_owner', created.branch.id]]);
    const parentDatabase = cp.listBranchDatabases(owner.principal, project.id, project.defaultBranchId).databases[0];
    expect(databases[0]?.id).not.toBe(parentDatabase?.id);
  });

  it('seeds branches built for tests and the seed the same way', () => {
    const { cp, owner, project } = withProject();
    const dev = cp.addBranch({ projectId: project.id, name: 'dev' });
    expect(cp.listBranchRoles(owner.principal, project.id, dev.id).roles.map((r) => r.name)).toEqual(['neondb_owner']);
  });
});

describe('one branch', () => {
  it('reads a branch with its annotation, as the list shows it', () => {
    const { cp, owner, project } = withProject();
    const { branch, annotation } = cp.getBranch(owner.principal, project.id, project.defaultBranchId);
    expect(branch).toEqual(cp.listBranches(owner.principal, project.id).branches.find((b) => b.id === branch.id));
    expect(branch).toMatchObject({ name: 'main', default: true });
    expect(annotation.object).toEqual({ type: 'console/branch', id: branch.id });
  });

  it('answers 404 outside the key’s scope, for another project’s branch, and for an unknown one', () => {
    const { cp, owner, project, personalUser } = withProject();
    const stranger = personalUser('Stranger');
    const other = cp.addProject({ name: 'other', ownerId: owner.userId, compute: false });
    const main = project.defaultBranchId;
    expect(failureOf(() => cp.getBranch(stranger.principal, project.id, main))?.status).toBe(404);
    expect(failureOf(() => cp.listBranchRoles(owner.principal, other.id, main))?.status).toBe(404);
    expect(failureOf(() => cp.listBranchDatabases(owner.principal, project.id, 'br-no-such-branch'))?.status).toBe(404);
  });

  it('answers 404 for a branch once it is deleted', () => {
    const { cp, clock, owner, project } = withProject();
    const branch = cp.addBranch({ projectId: project.id, name: 'short-lived' });
    clock.advance(MINUTE);
    expect(cp.deleteBranch(owner.principal, project.id, branch.id)).not.toBeNull();
    expect(failureOf(() => cp.getBranch(owner.principal, project.id, branch.id))?.status).toBe(404);
  });
});

describe('branch list', () => {
  /** main plus seven branches created a minute apart, oldest first. */
  function withBranches() {
    const sim = withProject();
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'];
    names.forEach((name, i) => sim.cp.addBranch({ projectId: sim.project.id, name, createdAt: START.getTime() - (50 - i) * MINUTE }));
    return { ...sim, names };
  }

  it('lists every branch, most recently updated first, with no next page when unpaged', () => {
    const { cp, owner, project, names } = withBranches();
    const page = cp.listBranches(owner.principal, project.id);
    expect(page.branches.map((b) => b.name)).toEqual([...names].reverse().concat('main'));
    expect(page.pagination).toEqual({ sort_by: 'updated_at', sort_order: 'desc' });
  });

  it('pages with limit and pagination.next in the order asked for, each branch exactly once', () => {
    const { cp, owner, project, names } = withBranches();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = cp.listBranches(owner.principal, project.id, { limit: 3, sortBy: 'name', sortOrder: 'asc', ...(cursor ? { cursor } : {}) });
      seen.push(...page.branches.map((b) => b.name));
      cursor = page.pagination.next;
      if (cursor === undefined) {
        expect(pages).toBe(3);
        break;
      }
    }
    expect(seen).toEqual([...names, 'main'].sort());
  });

  it('keeps later pages in place when a branch on an earlier page is deleted', () => {
    const { cp, owner, project } = withBranches();
    const first = cp.listBranches(owner.principal, project.id, { limit: 2, sortBy: 'created_at', sortOrder: 'asc' });
    expect(first.branches.map((b) => b.name)).toEqual(['main', 'alpha']);
    cp.deleteBranch(owner.principal, project.id, first.branches[1]!.id);
    const second = cp.listBranches(owner.principal, project.id, { limit: 2, sortBy: 'created_at', sortOrder: 'asc', cursor: first.pagination.next! });
    expect(second.branches.map((b) => b.name)).toEqual(['bravo', 'charlie']);
  });

  it('searches by part of a name or id', () => {
    const { cp, owner, project } = withBranches();
    expect(cp.listBranches(owner.principal, project.id, { search: 'LT' }).branches.map((b) => b.name)).toEqual(['delta']);
    const main = project.defaultBranchId;
    expect(cp.listBranches(owner.principal, project.id, { search: main.slice(3, 12) }).branches.map((b) => b.id)).toEqual([main]);
  });

  it('refuses a limit outside 1..10000 and a cursor that is not one of this project’s branches with 400', () => {
    const { cp, owner, project } = withBranches();
    const other = cp.addProject({ name: 'other', ownerId: owner.userId, compute: false });
    expect(failureOf(() => cp.listBranches(owner.principal, project.id, { limit: 0 }))?.status).toBe(400);
    expect(failureOf(() => cp.listBranches(owner.principal, project.id, { limit: 10_001 }))?.status).toBe(400);
    expect(failureOf(() => cp.listBranches(owner.principal, project.id, { cursor: other.defaultBranchId }))?.status).toBe(400);
  });
});
