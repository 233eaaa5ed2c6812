import { describe, expect, it } from 'vitest';
import { ApiKeyCreatedSchema, ApiKeyListSchema, AuthDetailsSchema, OrganizationsResponseSchema, ProjectsPageSchema } from '../../src/api/schemas';
import { createSim, json } from './support';

/** Two organizations, three people, personal and organization projects. */
function world() {
  const sim = createSim();
  const { cp } = sim;
  const ada = sim.personalUser('Ada Admin');
  const max = sim.personalUser('Max Member');
  const out = sim.personalUser('Olga Outsider');
  const acme = cp.addOrganization('Acme', { admins: [ada.userId], members: [max.userId] });
  const other = cp.addOrganization('Other', { admins: [out.userId] });
  const adaPersonal = cp.addProject({ name: 'ada-personal', ownerId: ada.userId });
  const maxPersonal = cp.addProject({ name: 'max-personal', ownerId: max.userId });
  const acmeProd = cp.addProject({ name: 'acme-prod', orgId: acme.id });
  const acmeDev = cp.addProject({ name: 'acme-dev', orgId: acme.id });
  const otherProject = cp.addProject({ name: 'other-app', orgId: other.id });
  const orgKey = cp.issueApiKey({ kind: 'organization', orgId: acme.id }, 'ci');
  const projectKey = cp.issueApiKey({ kind: 'project', orgId: acme.id, projectId: acmeProd.id }, 'prod-only');
  return { ...sim, ada, max, out, acme, other, adaPersonal, maxPersonal, acmeProd, acmeDev, otherProject, orgKey, projectKey };
}

async function projectNames(w: ReturnType<typeof world>, key: string, query = '') {
  const res = await w.call('GET', `/projects${query}`, { key });
  expect(res.status).toBe(200);
  return ProjectsPageSchema.parse(res.body)
    .projects.map((p) => p.name)
    .sort();
}

describe('personal API keys', () => {
  it("list the user's personal projects, and an organization's projects with org_id when the user is a member", async () => {
    const w = world();
    expect(await projectNames(w, w.max.key)).toEqual(['max-personal']);
    expect(await projectNames(w, w.max.key, `?org_id=${w.acme.id}`)).toEqual(['acme-dev', 'acme-prod']);
    expect((await w.call('GET', `/projects/${w.acmeProd.id}`, { key: w.max.key })).status).toBe(200);
  });

  it('are refused with 403 for an organization the user is not in, and see its projects as missing', async () => {
    const w = world();
    const list = await w.call('GET', `/projects?org_id=${w.other.id}`, { key: w.max.key });
    expect(list.status).toBe(403);
    expect(json(list).message).toMatch(/not a member/);
    expect((await w.call('GET', `/projects/${w.otherProject.id}`, { key: w.max.key })).status).toBe(404);
    expect((await w.call('GET', `/projects/${w.adaPersonal.id}/operations`, { key: w.max.key })).status).toBe(404);
  });

  it("lose an organization's projects as soon as the user leaves it, and keep their personal ones", async () => {
    const w = world();
    expect((await w.call('GET', `/projects/${w.acmeDev.id}`, { key: w.max.key })).status).toBe(200);
    w.cp.removeMember(w.acme.id, w.max.userId);
    expect((await w.call('GET', `/projects/${w.acmeDev.id}`, { key: w.max.key })).status).toBe(404);
    expect((await w.call('GET', `/projects?org_id=${w.acme.id}`, { key: w.max.key })).status).toBe(403);
    expect(await projectNames(w, w.max.key)).toEqual(['max-personal']);
    const orgs = OrganizationsResponseSchema.parse((await w.call('GET', '/users/me/organizations', { key: w.max.key })).body);
    expect(orgs.organizations).toEqual([]);
  });

  it('identify as api_key_user with the user id, and list the user’s organizations', async () => {
    const w = world();
    const auth = AuthDetailsSchema.parse((await w.call('GET', '/auth', { key: w.ada.key })).body);
    expect(auth).toEqual({ account_id: w.ada.userId, auth_method: 'api_key_user' });
    const orgs = OrganizationsResponseSchema.parse((await w.call('GET', '/users/me/organizations', { key: w.ada.key })).body);
    expect(orgs.organizations.map((o) => o.id)).toEqual([w.acme.id]);
  });
});

describe('organization API keys', () => {
  it('see every project of their organization and nothing else', async () => {
    const w = world();
    expect(await projectNames(w, w.orgKey.secret)).toEqual(['acme-dev', 'acme-prod']);
    expect(await projectNames(w, w.orgKey.secret, `?org_id=${w.acme.id}`)).toEqual(['acme-dev', 'acme-prod']);
    expect((await w.call('GET', `/projects?org_id=${w.other.id}`, { key: w.orgKey.secret })).status).toBe(403);
    expect((await w.call('GET', `/projects/${w.otherProject.id}`, { key: w.orgKey.secret })).status).toBe(404);
    expect((await w.call('GET', `/projects/${w.adaPersonal.id}`, { key: w.orgKey.secret })).status).toBe(404);
  });

  it('identify as api_key_org with the organization id, and /users/me/organizations answers that one organization', async () => {
    const w = world();
    const auth = AuthDetailsSchema.parse((await w.call('GET', '/auth', { key: w.orgKey.secret })).body);
    expect(auth).toEqual({ account_id: w.acme.id, auth_method: 'api_key_org' });
    const orgs = OrganizationsResponseSchema.parse((await w.call('GET', '/users/me/organizations', { key: w.orgKey.secret })).body);
    expect(orgs.organizations.map((o) => o.id)).toEqual([w.acme.id]);
  });

  it('manage the organization’s keys with admin rights, but not personal keys', async () => {
    const w = world();
    const created = await w.call('POST', `/organizations/${w.acme.id}/api_keys`, { key: w.orgKey.secret, body: { key_name: 'deploy' } });
    expect(created.status).toBe(200);
    const list = ApiKeyListSchema.parse((await w.call('GET', `/organizations/${w.acme.id}/api_keys`, { key: w.orgKey.secret })).body);
    expect(list.map((k) => k.name).sort()).toEqual(['ci', 'deploy', 'prod-only']);
    expect(list.find((k) => k.name === 'prod-only')?.project_id).toBe(w.acmeProd.id);
    expect(list.find((k) => k.name === 'ci')?.project_id).toBeUndefined();
    expect((await w.call('GET', '/api_keys', { key: w.orgKey.secret })).status).toBe(403);
    expect((await w.call('GET', `/organizations/${w.other.id}/api_keys`, { key: w.orgKey.secret })).status).toBe(403);
  });
});

describe('project-scoped API keys', () => {
  it('see exactly their one project', async () => {
    const w = world();
    const key = w.projectKey.secret;
    expect(await projectNames(w, key)).toEqual(['acme-prod']);
    expect((await w.call('GET', `/projects/${w.acmeProd.id}/operations`, { key })).status).toBe(200);
    expect((await w.call('GET', `/projects/${w.acmeDev.id}`, { key })).status).toBe(404);
    expect((await w.call('GET', `/projects/${w.acmeDev.id}/operations`, { key })).status).toBe(404);
    const auth = AuthDetailsSchema.parse((await w.call('GET', '/auth', { key })).body);
    expect(auth).toEqual({ account_id: w.acme.id, auth_method: 'api_key_org' });
  });

  it('may manage their project but cannot delete it, create projects, or touch organization keys', async () => {
    const w = world();
    const key = w.projectKey.secret;
    expect((await w.call('POST', `/projects/${w.acmeProd.id}/branches`, { key, body: { branch: { name: 'fix' } } })).status).toBe(201);
    const del = await w.call('DELETE', `/projects/${w.acmeProd.id}`, { key });
    expect(del.status).toBe(403);
    expect(json(del).message).toMatch(/cannot delete/);
    expect((await w.call('POST', '/projects', { key, body: { project: { name: 'sneaky' } } })).status).toBe(403);
    expect((await w.call('GET', `/organizations/${w.acme.id}/api_keys`, { key })).status).toBe(403);
    expect((await w.call('POST', `/organizations/${w.acme.id}/api_keys`, { key, body: { key_name: 'x' } })).status).toBe(403);
    expect(w.cp.findProject(w.acmeProd.id)).toBeDefined();
  });

  it('stop working (401) once their project leaves the organization, even if it comes back', async () => {
    const w = world();
    const key = w.projectKey.secret;
    w.cp.transferProject(w.acmeProd.id, w.other.id);
    expect((await w.call('GET', `/projects/${w.acmeProd.id}`, { key })).status).toBe(401);
    expect((await w.call('GET', '/auth', { key })).status).toBe(401);
    w.cp.transferProject(w.acmeProd.id, w.acme.id);
    expect((await w.call('GET', `/projects/${w.acmeProd.id}`, { key })).status).toBe(401);
    expect((await w.call('GET', `/projects/${w.acmeProd.id}`, { key: w.orgKey.secret })).status).toBe(200);
  });

  it('can be created by any member of the organization, for a project of that organization', async () => {
    const w = world();
    const created = await w.call('POST', `/organizations/${w.acme.id}/api_keys`, {
      key: w.max.key,
      body: { key_name: 'max-prod', project_id: w.acmeProd.id },
    });
    expect(created.status).toBe(200);
    const key = ApiKeyCreatedSchema.parse(created.body);
    expect(key.project_id).toBe(w.acmeProd.id);
    expect(await projectNames(w, key.key)).toEqual(['acme-prod']);
    const foreign = await w.call('POST', `/organizations/${w.acme.id}/api_keys`, {
      key: w.max.key,
      body: { key_name: 'bad', project_id: w.otherProject.id },
    });
    expect(foreign.status).toBe(400);
    expect(json(foreign).message).toMatch(/project_id/);
    expect((await w.call('POST', `/organizations/${w.acme.id}/api_keys`, { key: w.max.key, body: { key_name: 'org' } })).status).toBe(403);
    expect((await w.call('GET', `/organizations/${w.acme.id}/api_keys`, { key: w.max.key })).status).toBe(403);
  });
});

describe('revocation', () => {
  it('rejects the very next request with a personal key revoked through the API', async () => {
    const w = world();
    const second = ApiKeyCreatedSchema.parse((await w.call('POST', '/api_keys', { key: w.ada.key, body: { key_name: 'laptop' } })).body);
    expect((await w.call('GET', '/projects', { key: second.key })).status).toBe(200);
    const revoked = await w.call('DELETE', `/api_keys/${second.id}`, { key: w.ada.key });
    expect(revoked.status).toBe(200);
    expect(json(revoked)).toMatchObject({ id: second.id, name: 'laptop', revoked: true });
    expect((await w.call('GET', '/projects', { key: second.key })).status).toBe(401);
    const list = ApiKeyListSchema.parse((await w.call('GET', '/api_keys', { key: w.ada.key })).body);
    expect(list.map((k) => k.id)).not.toContain(second.id);
  });

  it('lets a key revoke itself, after which it is rejected for good', async () => {
    const w = world();
    expect((await w.call('DELETE', `/api_keys/${w.ada.keyId}`, { key: w.ada.key })).status).toBe(200);
    expect((await w.call('GET', '/auth', { key: w.ada.key })).status).toBe(401);
    expect(w.cp.authenticate(w.ada.key)).toBeNull();
  });

  it('only lets the owner revoke a personal key', async () => {
    const w = world();
    const res = await w.call('DELETE', `/api_keys/${w.ada.keyId}`, { key: w.max.key });
    expect(res.status).toBe(404);
    expect((await w.call('GET', '/auth', { key: w.ada.key })).status).toBe(200);
  });

  it('lets an admin revoke a project-scoped key, which is then rejected', async () => {
    const w = world();
    const res = await w.call('DELETE', `/organizations/${w.acme.id}/api_keys/${w.projectKey.id}`, { key: w.ada.key });
    expect(res.status).toBe(200);
    expect(json(res)).toMatchObject({ id: w.projectKey.id, revoked: true, project_id: w.acmeProd.id });
    expect((await w.call('GET', `/projects/${w.acmeProd.id}`, { key: w.projectKey.secret })).status).toBe(401);
    expect((await w.call('DELETE', `/organizations/${w.acme.id}/api_keys/${w.orgKey.id}`, { key: w.max.key })).status).toBe(403);
  });

  it('rejects a revoked key through the domain API as well', async () => {
    const w = world();
    w.cp.revokeApiKey(w.orgKey.id);
    expect((await w.call('GET', '/projects', { key: w.orgKey.secret })).status).toBe(401);
  });
});

describe('personal key management', () => {
  it('returns the secret once on creation and never in the list', async () => {
    const w = world();
    const res = await w.call('POST', '/api_keys', { key: w.ada.key, body: { key_name: 'ci' } });
    const created = ApiKeyCreatedSchema.parse(res.body);
    expect(created.key).toMatch(/^[a-z0-9]{64}$/);
    expect(created.created_by).toBe(w.ada.userId);
    const listRes = await w.call('GET', '/api_keys', { key: w.ada.key });
    expect(JSON.stringify(listRes.body)).not.toContain(created.key);
    expect(ApiKeyListSchema.parse(listRes.body).map((k) => k.name)).toEqual(['Ada Admin key', 'ci']);
  });

  it('rejects key names outside 1..64 characters and malformed bodies with 400 naming the problem', async () => {
    const w = world();
    const post = (body: unknown) => w.call('POST', '/api_keys', { key: w.ada.key, body });
    expect(json(await post({ key_name: '' })).message).toMatch(/key_name/);
    expect((await post({ key_name: '' })).status).toBe(400);
    expect((await post({ key_name: 'x'.repeat(65) })).status).toBe(400);
    expect((await post({ key_name: 'x'.repeat(64) })).status).toBe(200);
    expect((await post({})).status).toBe(400);
    expect((await post({ key_name: 7 })).status).toBe(400);
    const raw = await w.call('POST', '/api_keys', { key: w.ada.key, rawBody: '{not json' });
    expect(raw.status).toBe(400);
    expect(json(raw).message).toMatch(/JSON/);
    const badId = await w.call('DELETE', '/api_keys/abc', { key: w.ada.key });
    expect(badId.status).toBe(400);
    expect(json(badId).message).toMatch(/key_id/);
  });
});
