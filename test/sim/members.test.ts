import { describe, expect, it } from 'vitest';
import { OrganizationMembersSchema } from '../../src/api/schemas';
import { createSim } from './support';

// GET /organizations/{org_id}/members: how a console tells an organization's admin from a member.

function world() {
  const sim = createSim();
  const ada = sim.personalUser('Ada Admin');
  const max = sim.personalUser('Max Member');
  const out = sim.personalUser('Olga Outsider');
  const acme = sim.cp.addOrganization('Acme', { admins: [ada.userId], members: [max.userId] });
  const prod = sim.cp.addProject({ name: 'acme-prod', orgId: acme.id });
  const orgKey = sim.cp.issueApiKey({ kind: 'organization', orgId: acme.id }, 'ci');
  const projectKey = sim.cp.issueApiKey({ kind: 'project', orgId: acme.id, projectId: prod.id }, 'prod-only');
  return { ...sim, ada, max, out, acme, orgKey, projectKey };
}

describe('organization members', () => {
  it('lists every member with their role to any member and to the organization key, with stable member ids', async () => {
    const w = world();
    const path = `/organizations/${w.acme.id}/members`;
    const byMember = OrganizationMembersSchema.parse((await w.call('GET', path, { key: w.max.key })).body);
    expect(byMember.members.map(({ member }) => [member.user_id, member.role]).sort()).toEqual(
      [
        [w.ada.userId, 'admin'],
        [w.max.userId, 'member'],
      ].sort(),
    );
    const again = await w.call('GET', path, { key: w.orgKey.secret });
    expect(again.status).toBe(200);
    expect(again.body).toEqual((await w.call('GET', path, { key: w.ada.key })).body);
  });

  it('refuses (403) a user outside the organization and a project-scoped key; an unknown organization is 404', async () => {
    const w = world();
    const path = `/organizations/${w.acme.id}/members`;
    expect((await w.call('GET', path, { key: w.out.key })).status).toBe(403);
    expect((await w.call('GET', path, { key: w.projectKey.secret })).status).toBe(403);
    expect((await w.call('GET', '/organizations/org-nope-12345678/members', { key: w.ada.key })).status).toBe(404);
  });
});
