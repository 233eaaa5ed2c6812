// Accounts through the control plane's public API: who a key stands for (/auth, /users/me).
import { describe, expect, it } from 'vitest';
import { createSim, failureOf } from './support';

function world() {
  const sim = createSim();
  const ada = sim.personalUser('Ada Lovelace');
  const acme = sim.cp.addOrganization('Acme', { admins: [ada.userId] });
  const project = sim.cp.addProject({ name: 'acme-app', orgId: acme.id, compute: false });
  const orgKey = sim.principalOf(sim.cp.issueApiKey({ kind: 'organization', orgId: acme.id }, 'ci').secret);
  const projectKey = sim.principalOf(sim.cp.issueApiKey({ kind: 'project', orgId: acme.id, projectId: project.id }, 'app').secret);
  return { ...sim, ada, acme, orgKey, projectKey };
}

describe('the current user', () => {
  it('is the personal key’s user: id, email, first and last name, and the free plan’s limits', () => {
    const { cp, ada } = world();
    const me = cp.currentUser(ada.principal);
    expect(me).toMatchObject({ id: ada.userId, email: 'ada.lovelace@example.com', name: 'Ada', last_name: 'Lovelace', plan: 'free_v3' });
    expect(me.login).toBe(me.email);
    expect(me.projects_limit).toBeGreaterThan(0);
    expect(cp.whoAmI(ada.principal).account_id).toBe(me.id);
  });

  it('does not exist for organization and project-scoped keys, which stand for no user (403)', () => {
    const { cp, orgKey, projectKey, acme } = world();
    expect(failureOf(() => cp.currentUser(orgKey))?.status).toBe(403);
    expect(failureOf(() => cp.currentUser(projectKey))?.status).toBe(403);
    expect(cp.whoAmI(orgKey)).toEqual({ account_id: acme.id, auth_method: 'api_key_org' });
  });
});
