// The routes the platform's CLI (neonctl) calls beyond the console's, over HTTP through the handlers,
// and what a platform route the simulator does not simulate answers.
import { describe, expect, it } from 'vitest';
import { ApiErrorBodySchema, ProjectsPageSchema } from '../../src/api/schemas';
import { createSim, json } from './support';

function world() {
  const sim = createSim();
  const owner = sim.personalUser('Demo User');
  const project = sim.cp.addProject({ name: 'app', ownerId: owner.userId, compute: false });
  const dev = sim.cp.addBranch({ projectId: project.id, name: 'dev' });
  const acme = sim.cp.addOrganization('Acme', { admins: [owner.userId] });
  const orgKey = sim.cp.issueApiKey({ kind: 'organization', orgId: acme.id }, 'ci').secret;
  return { ...sim, owner, project, dev, orgKey };
}

describe('identity', () => {
  it('answers GET /users/me for a personal key, and 403 with the platform error body for an organization key', async () => {
    const w = world();
    const me = await w.call('GET', '/users/me', { key: w.owner.key });
    expect(me.status).toBe(200);
    expect(json(me)).toMatchObject({ id: w.owner.userId, name: 'Demo', last_name: 'User' });
    const refused = await w.call('GET', '/users/me', { key: w.orgKey });
    expect(refused.status).toBe(403);
    expect(ApiErrorBodySchema.parse(refused.body).request_id).toBe(refused.requestId);
  });
});

describe('projects shared with the user', () => {
  it('answers GET /projects/shared with a page of projects, not as a project called "shared"', async () => {
    const w = world();
    const res = await w.call('GET', '/projects/shared?limit=100', { key: w.owner.key });
    expect(res.status).toBe(200);
    expect(ProjectsPageSchema.parse(res.body).projects).toEqual([]);
  });
});

describe('one branch, its databases and roles', () => {
  it('answers the branch, its databases and its roles, and 404 for a branch that is not there', async () => {
    const w = world();
    const base = `/projects/${w.project.id}/branches/${w.dev.id}`;
    const branch = await w.call('GET', base, { key: w.owner.key });
    expect(branch.status).toBe(200);
    expect(json(branch).branch).toMatchObject({ id: w.dev.id, name: 'dev', default: false });
    expect(json(await w.call('GET', `${base}/databases`, { key: w.owner.key })).databases).toEqual([
      expect.objectContaining({ name: 'neondb', owner_name: 'neondb_owner', branch_id: w.dev.id }),
    ]);
    expect(json(await w.call('GET', `${base}/roles`, { key: w.owner.key })).roles).toEqual([
      expect.objectContaining({ name: 'neondb_owner', branch_id: w.dev.id }),
    ]);
    const missing = await w.call('GET', `/projects/${w.project.id}/branches/br-not-there/roles`, { key: w.owner.key });
    expect(missing.status).toBe(404);
  });

  it('pages the branch list with limit, sort and pagination.next, and refuses an unknown sort with 400', async () => {
    const w = world();
    const path = `/projects/${w.project.id}/branches?limit=1&sort_by=name&sort_order=asc`;
    const first = json(await w.call('GET', path, { key: w.owner.key }));
    expect(first.branches).toEqual([expect.objectContaining({ name: 'dev' })]);
    const next = (first.pagination as { next: string }).next;
    const second = json(await w.call('GET', `${path}&cursor=${encodeURIComponent(next)}`, { key: w.owner.key }));
    expect(second.branches).toEqual([expect.objectContaining({ name: 'main' })]);
    expect(second.pagination).toEqual({ sort_by: 'name', sort_order: 'asc' });
    const bad = await w.call('GET', `/projects/${w.project.id}/branches?sort_by=size`, { key: w.owner.key });
    expect(bad.status).toBe(400);
    expect(json(bad).message).toMatch(/sort_by/);
  });
});

describe('branch count', () => {
  it('answers GET /projects/{id}/branches/count with the number of live branches, not as a branch called "count"', async () => {
    const w = world();
    const path = `/projects/${w.project.id}/branches/count`;
    expect(json(await w.call('GET', path, { key: w.owner.key }))).toEqual({ count: 2 });
    w.cp.addBranch({ projectId: w.project.id, name: 'feature' });
    expect(json(await w.call('GET', path, { key: w.owner.key }))).toEqual({ count: 3 });
    expect(json(await w.call('GET', `${path}?search=feat`, { key: w.owner.key }))).toEqual({ count: 1 });
  });
});

describe('routes outside the simulator', () => {
  it('answers a platform route it does not simulate with 501 and the platform error body, after checking the key', async () => {
    const w = world();
    const path = `/projects/${w.project.id}/branches/${w.dev.id}/roles`;
    const res = await w.call('POST', path, { key: w.owner.key, body: { role: { name: 'app' } } });
    expect(res.status).toBe(501);
    expect(ApiErrorBodySchema.parse(res.body).message).toMatch(/POST \/projects\/\{project_id\}\/branches\/\{branch_id\}\/roles/);
    expect(res.requestId).toBeTruthy();
    expect((await w.call('POST', path, { key: 'not-a-key' })).status).toBe(401);
  });

  it('answers a path the platform does not have with 404', async () => {
    const w = world();
    const res = await w.call('GET', '/projects/x/no-such-thing', { key: w.owner.key });
    expect(res.status).toBe(404);
    expect(ApiErrorBodySchema.parse(res.body).request_id).toBe(res.requestId);
  });
});
