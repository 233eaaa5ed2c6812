import { describe, expect, it } from 'vitest';
import { createSim, json } from './support';

function projectIds(body: unknown): string[] {
  const projects = (body as { projects?: { id: string }[] }).projects ?? [];
  return projects.map((p) => p.id);
}

/** An organization with an admin, two projects, and the admin's personal key. */
function world() {
  const sim = createSim({ rateLimits: false });
  const admin = sim.personalUser('Ada Admin');
  const org = sim.cp.addOrganization('Acme', { admins: [admin.userId] });
  const shop = sim.cp.addProject({ name: 'shop', orgId: org.id });
  const blog = sim.cp.addProject({ name: 'blog', orgId: org.id });
  return { ...sim, admin, org, shop, blog };
}

describe('API key rules of the simulator', () => {
  it('a revoked key gets 401 on its very next request', async () => {
    const { call, admin } = world();
    const created = json(await call('POST', '/api_keys', { key: admin.key, body: { key_name: 'short-lived' } }));
    const secret = String(created.key);
    expect((await call('GET', '/projects', { key: secret })).status).toBe(200);

    const revoked = await call('DELETE', `/api_keys/${String(created.id)}`, { key: admin.key });
    expect(json(revoked)).toMatchObject({ id: created.id, revoked: true });

    expect((await call('GET', '/projects', { key: secret })).status).toBe(401);
    expect((await call('GET', '/auth', { key: secret })).status).toBe(401);
  });

  it('a key revoked through the domain API is refused at once', () => {
    const { cp, admin } = world();
    cp.revokeApiKey(admin.keyId);
    expect(cp.authenticate(admin.key)).toBeNull();
  });

  it('a project-scoped key sees exactly its project', async () => {
    const { call, cp, org, shop, blog } = world();
    const scoped = cp.issueApiKey({ kind: 'project', orgId: org.id, projectId: shop.id }, 'shop-ci');

    expect(projectIds((await call('GET', '/projects', { key: scoped.secret })).body)).toEqual([shop.id]);
    expect(projectIds((await call('GET', `/projects?org_id=${org.id}`, { key: scoped.secret })).body)).toEqual([shop.id]);
    expect((await call('GET', `/projects/${shop.id}`, { key: scoped.secret })).status).toBe(200);
    expect((await call('GET', `/projects/${blog.id}`, { key: scoped.secret })).status).toBe(404);
    // Nor can it manage keys: that is an organization action.
    expect((await call('GET', `/organizations/${org.id}/api_keys`, { key: scoped.secret })).status).toBe(403);
    expect((await call('POST', '/api_keys', { key: scoped.secret, body: { key_name: 'x' } })).status).toBe(403);
  });

  it('a personal key loses an organization’s projects when its user leaves that organization', async () => {
    const { call, cp, org, shop, blog } = world();
    const member = cp.addUser({ name: 'Max Member' });
    cp.addMember(org.id, member.id, 'member');
    const key = cp.issueApiKey({ kind: 'personal', userId: member.id }, 'max-laptop');
    expect(projectIds((await call('GET', `/projects?org_id=${org.id}`, { key: key.secret })).body).sort()).toEqual([shop.id, blog.id].sort());

    cp.removeMember(org.id, member.id);

    expect((await call('GET', `/projects?org_id=${org.id}`, { key: key.secret })).status).toBe(403);
    expect((await call('GET', `/projects/${shop.id}`, { key: key.secret })).status).toBe(404);
    // The key itself stays valid: only the organization's projects are gone from its reach.
    expect((await call('GET', '/auth', { key: key.secret })).status).toBe(200);
  });

  it('a project leaving its organization makes its project-scoped keys unusable', async () => {
    const { call, cp, admin, org, shop, blog } = world();
    const other = cp.addOrganization('Elsewhere', { admins: [admin.userId] });
    const shopKey = cp.issueApiKey({ kind: 'project', orgId: org.id, projectId: shop.id }, 'shop-ci');
    const blogKey = cp.issueApiKey({ kind: 'project', orgId: org.id, projectId: blog.id }, 'blog-ci');

    cp.transferProject(shop.id, other.id);
    expect(cp.authenticate(shopKey.secret)).toBeNull();

    expect((await call('GET', `/projects/${shop.id}`, { key: shopKey.secret })).status).toBe(401);
    expect((await call('GET', '/projects', { key: shopKey.secret })).status).toBe(401);
    // For good: moving the project back does not revive the key.
    cp.transferProject(shop.id, org.id);
    expect((await call('GET', '/auth', { key: shopKey.secret })).status).toBe(401);
    // Keys of projects that stayed keep working.
    expect((await call('GET', `/projects/${blog.id}`, { key: blogKey.secret })).status).toBe(200);
  });
});
