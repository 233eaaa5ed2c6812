// Projects through the control plane's public API: projects shared with a user (GET /projects/shared).
import { describe, expect, it } from 'vitest';
import { createSim, failureOf } from './support';

function world() {
  const sim = createSim();
  const ada = sim.personalUser('Ada');
  const bob = sim.personalUser('Bob');
  const adas = sim.cp.addProject({ name: 'ada-app', ownerId: ada.userId, compute: false });
  const acme = sim.cp.addOrganization('Acme', { admins: [ada.userId] });
  const orgKey = sim.principalOf(sim.cp.issueApiKey({ kind: 'organization', orgId: acme.id }, 'ci').secret);
  return { ...sim, ada, bob, adas, orgKey };
}

const names = (page: { projects: { name: string }[] }) => page.projects.map((p) => p.name);

describe('shared projects', () => {
  it('lists none until a project is shared, then that one, which the user may then read but does not own', () => {
    const { cp, ada, bob, adas } = world();
    expect(cp.listSharedProjects(bob.principal)).toEqual({ projects: [], applications: {}, integrations: {} });
    expect(failureOf(() => cp.getProject(bob.principal, adas.id))?.status).toBe(404);

    cp.shareProject(adas.id, bob.userId);
    expect(names(cp.listSharedProjects(bob.principal))).toEqual(['ada-app']);
    expect(cp.getProject(bob.principal, adas.id).project.owner_id).toBe(ada.userId);
    expect(names(cp.listProjects(bob.principal))).toEqual([]);
    expect(names(cp.listSharedProjects(ada.principal))).toEqual([]);
  });

  it('pages and searches like the projects list', () => {
    const { cp, ada, bob } = world();
    for (const name of ['one', 'two', 'three']) cp.shareProject(cp.addProject({ name, ownerId: ada.userId, compute: false }).id, bob.userId);
    const first = cp.listSharedProjects(bob.principal, { limit: 2 });
    expect(first.projects).toHaveLength(2);
    const rest = cp.listSharedProjects(bob.principal, { limit: 2, cursor: first.pagination!.cursor });
    expect([...names(first), ...names(rest)].sort()).toEqual(['one', 'three', 'two']);
    expect(names(cp.listSharedProjects(bob.principal, { search: 'thr' }))).toEqual(['three']);
    expect(failureOf(() => cp.listSharedProjects(bob.principal, { limit: 401 }))?.status).toBe(400);
  });

  it('lists none for keys that stand for no user', () => {
    const { cp, bob, adas, orgKey } = world();
    cp.shareProject(adas.id, bob.userId);
    expect(cp.listSharedProjects(orgKey).projects).toEqual([]);
  });
});
