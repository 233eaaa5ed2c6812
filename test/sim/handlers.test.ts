import { describe, expect, it } from 'vitest';
import {
  ApiErrorBodySchema,
  BranchOperationsSchema,
  BranchesResponseSchema,
  EndpointOperationsSchema,
  EndpointsResponseSchema,
  OperationResponseSchema,
  OperationsPageSchema,
  ProjectResponseSchema,
  ProjectsPageSchema,
} from '../../src/api/schemas';
import { MINUTE, SECOND, START, createSim, json } from './support';

const CURSOR_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const WIRE_TIME_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function withProject(options: Parameters<typeof createSim>[0] = {}) {
  const sim = createSim(options);
  const owner = sim.personalUser();
  const project = sim.cp.addProject({ name: 'history', ownerId: owner.userId, compute: false });
  return { ...sim, owner, project };
}

/** `count` finished operations one minute apart, the newest an hour ago. */
function addHistory(sim: ReturnType<typeof withProject>, count: number): void {
  for (let i = 0; i < count; i++) {
    sim.cp.addOperation({
      projectId: sim.project.id,
      action: 'check_availability',
      status: 'finished',
      createdAt: START.getTime() - 60 * MINUTE - (count - 1 - i) * MINUTE,
    });
  }
}

async function operationsPage(sim: ReturnType<typeof withProject>, query: string) {
  const res = await sim.call('GET', `/projects/${sim.project.id}/operations${query}`, { key: sim.owner.key });
  expect(res.status).toBe(200);
  return OperationsPageSchema.parse(res.body);
}

describe('request ids and error bodies', () => {
  it('puts x-neon-ret-request-id on every response, success or error, and repeats it in error bodies', async () => {
    const sim = withProject();
    const ok = await sim.call('GET', '/projects', { key: sim.owner.key });
    const missing = await sim.call('GET', '/projects/nope', { key: sim.owner.key });
    const anonymous = await sim.call('GET', '/projects');
    for (const res of [ok, missing, anonymous]) expect(res.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([ok.requestId, missing.requestId, anonymous.requestId]).size).toBe(3);
    expect(ApiErrorBodySchema.parse(missing.body)).toEqual({ code: '', message: 'project nope not found', request_id: missing.requestId });
    expect(json(anonymous).request_id).toBe(anonymous.requestId);
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers 401 without an Authorization header, with a malformed one, and with an unknown key', async () => {
    const sim = withProject();
    const none = await sim.call('GET', '/projects');
    expect(none.status).toBe(401);
    expect(json(none).message).toMatch(/Authorization/);
    const basic = await sim.call('GET', '/projects', { headers: { authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
    const unknown = await sim.call('GET', '/projects', { key: 'not-a-real-key' });
    expect(unknown.status).toBe(401);
    expect(json(unknown).message).toBe('invalid API key');
  });

  it('answers unknown routes under /api/v2 with a 404 JSON error', async () => {
    const sim = withProject();
    const res = await sim.call('GET', '/projects/x/snapshots/y/z', { key: sim.owner.key });
    expect(res.status).toBe(404);
    expect(json(res).message).toMatch(/no route for GET \/api\/v2\/projects\/x\/snapshots\/y\/z/);
    expect(res.requestId).toBeTruthy();
    expect((await sim.call('PUT', '/projects', { key: sim.owner.key })).status).toBe(404);
  });

  it('answers 404 for unknown operations, including one that belongs to another project', async () => {
    const sim = withProject();
    const other = sim.cp.addProject({ name: 'other', ownerId: sim.owner.userId, compute: false });
    const foreign = sim.cp.addOperation({ projectId: other.id, action: 'apply_config', status: 'finished' });
    const path = (id: string) => `/projects/${sim.project.id}/operations/${id}`;
    expect((await sim.call('GET', path('00000000-0000-4000-8000-000000000000'), { key: sim.owner.key })).status).toBe(404);
    expect((await sim.call('GET', path(foreign.id), { key: sim.owner.key })).status).toBe(404);
    const own = await sim.call('GET', `/projects/${other.id}/operations/${foreign.id}`, { key: sim.owner.key });
    expect(OperationResponseSchema.parse(own.body).operation.id).toBe(foreign.id);
  });
});

describe('operations pagination', () => {
  it('returns 10 operations newest first by default, with second-precision times and a microsecond cursor', async () => {
    const sim = withProject();
    addHistory(sim, 25);
    const page = await operationsPage(sim, '');
    expect(page.operations).toHaveLength(10);
    const created = page.operations.map((o) => o.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    expect(created.every((t) => WIRE_TIME_FORMAT.test(t))).toBe(true);
    expect(page.pagination?.cursor).toMatch(CURSOR_FORMAT);
    expect(page.pagination?.cursor.slice(0, 19)).toBe(page.operations[9]?.created_at.slice(0, 19));
  });

  it('keeps the cursor on the last page and answers an empty page after it, echoing the cursor', async () => {
    const sim = withProject();
    addHistory(sim, 5);
    const first = await operationsPage(sim, '?limit=3');
    const last = await operationsPage(sim, `?limit=3&cursor=${encodeURIComponent(first.pagination!.cursor)}`);
    expect(last.operations).toHaveLength(2);
    expect(last.pagination?.cursor).toMatch(CURSOR_FORMAT);
    const after = await operationsPage(sim, `?limit=3&cursor=${encodeURIComponent(last.pagination!.cursor)}`);
    expect(after.operations).toEqual([]);
    expect(after.pagination?.cursor).toBe(last.pagination?.cursor);
  });

  it('keeps the cursor when the last page is exactly full', async () => {
    const sim = withProject();
    addHistory(sim, 4);
    const first = await operationsPage(sim, '?limit=2');
    const second = await operationsPage(sim, `?limit=2&cursor=${encodeURIComponent(first.pagination!.cursor)}`);
    expect(second.operations).toHaveLength(2);
    const third = await operationsPage(sim, `?limit=2&cursor=${encodeURIComponent(second.pagination!.cursor)}`);
    expect(third.operations).toEqual([]);
  });

  it('omits pagination only for a project that has no operations at all', async () => {
    const sim = withProject();
    const page = await operationsPage(sim, '');
    expect(page).toEqual({ operations: [] });
  });

  it('returns both operations of the same second exactly once across a page boundary', async () => {
    const sim = withProject();
    const second = START.getTime() - 10 * MINUTE;
    const older = sim.cp.addOperation({ projectId: sim.project.id, action: 'create_branch', status: 'finished', createdAt: second + 120 });
    const newer = sim.cp.addOperation({ projectId: sim.project.id, action: 'start_compute', status: 'finished', createdAt: second + 480 });
    sim.cp.addOperation({ projectId: sim.project.id, action: 'apply_config', status: 'finished', createdAt: second - MINUTE });
    expect(older.created_at).toBe(newer.created_at);

    const first = await operationsPage(sim, '?limit=1');
    expect(first.operations.map((o) => o.id)).toEqual([newer.id]);
    const next = await operationsPage(sim, `?limit=1&cursor=${encodeURIComponent(first.pagination!.cursor)}`);
    expect(next.operations.map((o) => o.id)).toEqual([older.id]);
    const rest = await operationsPage(sim, `?limit=5&cursor=${encodeURIComponent(next.pagination!.cursor)}`);
    expect(rest.operations.map((o) => o.action)).toEqual(['apply_config']);
  });

  it('returns every operation exactly once even when more are created in one millisecond than it has microseconds', async () => {
    const sim = withProject();
    const at = START.getTime() - MINUTE;
    // 1,200 operations in one millisecond must share microseconds unless the simulator keeps them unique.
    const ids = Array.from(
      { length: 1200 },
      () => sim.cp.addOperation({ projectId: sim.project.id, action: 'apply_config', status: 'finished', createdAt: at }).id,
    );
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 40; i++) {
      const page = await operationsPage(sim, `?limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.operations.map((o) => o.id));
      if (page.operations.length < 37) break;
      cursor = page.pagination?.cursor ?? '';
    }
    expect(seen).toHaveLength(1200);
    expect(new Set(seen)).toEqual(new Set(ids));
  });

  it.each([
    ['0', /limit/],
    ['1001', /limit must be an integer between 1 and 1000/],
    ['ten', /limit/],
    ['1.5', /limit/],
    ['', /limit/],
  ])('rejects limit=%s with 400 naming the problem', async (limit, message) => {
    const sim = withProject();
    const res = await sim.call('GET', `/projects/${sim.project.id}/operations?limit=${limit}`, { key: sim.owner.key });
    expect(res.status).toBe(400);
    expect(json(res).message).toMatch(message);
  });

  it('accepts limit=1000 and returns up to a thousand operations', async () => {
    const sim = withProject();
    addHistory(sim, 1005);
    const page = await operationsPage(sim, '?limit=1000');
    expect(page.operations).toHaveLength(1000);
  });

  it.each(['yesterday', '2026-11-22', '2026-02-30T10:00:00.000000Z', '2026-11-22T11:59:58.123456'])(
    'rejects cursor=%s with 400 naming the cursor',
    async (cursor) => {
      const sim = withProject();
      addHistory(sim, 2);
      const res = await sim.call('GET', `/projects/${sim.project.id}/operations?cursor=${encodeURIComponent(cursor)}`, { key: sim.owner.key });
      expect(res.status).toBe(400);
      expect(json(res).message).toMatch(/cursor/);
    },
  );

  it('pages strictly older than the cursor, so a new operation never shifts later pages', async () => {
    const sim = withProject();
    addHistory(sim, 6);
    const first = await operationsPage(sim, '?limit=3');
    sim.cp.addOperation({ projectId: sim.project.id, action: 'apply_config', status: 'finished' });
    const second = await operationsPage(sim, `?limit=3&cursor=${encodeURIComponent(first.pagination!.cursor)}`);
    const all = [...first.operations, ...second.operations].map((o) => o.id);
    expect(new Set(all).size).toBe(6);
  });
});

describe('projects list', () => {
  function manyProjects() {
    const sim = createSim();
    const owner = sim.personalUser();
    const ids = Array.from(
      { length: 25 },
      (_, i) =>
        sim.cp.addProject({
          name: `service-${String(i).padStart(2, '0')}`,
          ownerId: owner.userId,
          compute: false,
          createdAt: START.getTime() - (25 - i) * MINUTE,
        }).id,
    );
    return { ...sim, owner, ids };
  }

  it('pages 10 at a time newest first with the last project id as cursor', async () => {
    const sim = manyProjects();
    const names: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await sim.call('GET', `/projects${cursor ? `?cursor=${cursor}` : ''}`, { key: sim.owner.key });
      const page = ProjectsPageSchema.parse(res.body);
      expect(page.applications).toEqual({});
      expect(page.integrations).toEqual({});
      names.push(...page.projects.map((p) => p.name));
      if (page.projects.length === 0) {
        expect(page.pagination?.cursor).toBe(cursor);
        break;
      }
      expect(page.pagination?.cursor).toBe(page.projects.at(-1)?.id);
      cursor = page.pagination?.cursor;
    }
    expect(names).toHaveLength(25);
    expect(names[0]).toBe('service-24');
    expect(names.at(-1)).toBe('service-00');
  });

  it('searches by name or id substring and validates limit 1..400', async () => {
    const sim = manyProjects();
    const byName = ProjectsPageSchema.parse((await sim.call('GET', '/projects?search=ICE-1&limit=400', { key: sim.owner.key })).body);
    expect(byName.projects.map((p) => p.name).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `service-1${i}`));
    const id = sim.ids[3]!;
    const byId = ProjectsPageSchema.parse((await sim.call('GET', `/projects?search=${id.slice(2, 12)}`, { key: sim.owner.key })).body);
    expect(byId.projects.map((p) => p.id)).toContain(id);
    expect((await sim.call('GET', '/projects?limit=401', { key: sim.owner.key })).status).toBe(400);
    expect((await sim.call('GET', '/projects?limit=0', { key: sim.owner.key })).status).toBe(400);
    const unknownCursor = await sim.call('GET', '/projects?cursor=no-such-project', { key: sim.owner.key });
    expect(unknownCursor.status).toBe(400);
    expect(json(unknownCursor).message).toMatch(/cursor/);
  });

  it('omits pagination when a key can see no projects at all', async () => {
    const sim = createSim();
    const owner = sim.personalUser();
    const res = await sim.call('GET', '/projects', { key: owner.key });
    expect(res.body).toEqual({ projects: [], applications: {}, integrations: {} });
  });

  it('answers a project with every listed field, including locked', async () => {
    const sim = manyProjects();
    const res = await sim.call('GET', `/projects/${sim.ids[0]!}`, { key: sim.owner.key });
    const { project } = ProjectResponseSchema.parse(res.body);
    expect(project).toMatchObject({ id: sim.ids[0], name: 'service-00', locked: false, pg_version: 17, region_id: 'aws-us-east-2' });
    expect(project.proxy_host).toBe('us-east-2.aws.neon.tech');
  });
});

describe('branches and computes over HTTP', () => {
  it('creates a branch with a compute: 201 with create_branch running and start_compute scheduling', async () => {
    const sim = withProject();
    const res = await sim.call('POST', `/projects/${sim.project.id}/branches`, {
      key: sim.owner.key,
      body: { branch: { name: 'feature-x' }, endpoints: [{ type: 'read_write' }] },
    });
    expect(res.status).toBe(201);
    const body = BranchOperationsSchema.parse(res.body);
    expect(body.branch).toMatchObject({ name: 'feature-x', parent_id: sim.project.defaultBranchId, default: false });
    expect(body.endpoints).toHaveLength(1);
    expect(body.operations.map((o) => [o.action, o.status])).toEqual([
      ['create_branch', 'running'],
      ['start_compute', 'scheduling'],
    ]);
    expect(json(res).roles).toEqual([expect.objectContaining({ name: 'neondb_owner', branch_id: body.branch.id })]);
    expect(json(res).databases).toHaveLength(1);
    const polled = await sim.call('GET', `/projects/${sim.project.id}/operations/${body.operations[1]!.id}`, { key: sim.owner.key });
    expect(OperationResponseSchema.parse(polled.body).operation.status).toBe('scheduling');
  });

  it('creates a branch without a body: only create_branch, named after its id', async () => {
    const sim = withProject();
    const res = await sim.call('POST', `/projects/${sim.project.id}/branches`, { key: sim.owner.key });
    expect(res.status).toBe(201);
    const body = BranchOperationsSchema.parse(res.body);
    expect(body.operations.map((o) => o.action)).toEqual(['create_branch']);
    expect(body.branch.name).toBe(body.branch.id);
    expect(body.endpoints).toEqual([]);
  });

  it.each([
    [{ branch: { name: '' } }, /branch\.name/],
    [{ branch: 'main' }, /branch must be a JSON object/],
    [{ endpoints: [{ type: 'read_mostly' }] }, /endpoints\[0\]\.type/],
    [{ endpoints: [{ type: 'read_write' }, { type: 'read_write' }] }, /at most one read_write/],
    [{ branch: { parent_id: 'br-missing-000000' } }, /branch\.parent_id/],
    [[1, 2], /JSON object/],
  ])('refuses branch body %j with 400 naming the problem', async (body, message) => {
    const sim = withProject();
    const res = await sim.call('POST', `/projects/${sim.project.id}/branches`, { key: sim.owner.key, body });
    expect(res.status).toBe(400);
    expect(json(res).message).toMatch(message);
  });

  it('refuses a duplicate branch name with 409', async () => {
    const sim = withProject();
    const res = await sim.call('POST', `/projects/${sim.project.id}/branches`, { key: sim.owner.key, body: { branch: { name: 'main' } } });
    expect(res.status).toBe(409);
  });

  it('deletes a branch with 200 and its operations, then answers 204 for it and for unknown branches', async () => {
    const sim = withProject();
    const branch = sim.cp.addBranch({ projectId: sim.project.id, name: 'old', compute: 'active' });
    const path = `/projects/${sim.project.id}/branches/${branch.id}`;
    const res = await sim.call('DELETE', path, { key: sim.owner.key });
    expect(res.status).toBe(200);
    const body = BranchOperationsSchema.parse(res.body);
    expect(body.branch.id).toBe(branch.id);
    expect(body.operations.map((o) => [o.action, o.status])).toEqual([
      ['suspend_compute', 'running'],
      ['delete_timeline', 'scheduling'],
    ]);
    sim.clock.advance(10 * SECOND);
    const again = await sim.call('DELETE', path, { key: sim.owner.key });
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
    expect(again.requestId).toBeTruthy();
    expect((await sim.call('DELETE', `/projects/${sim.project.id}/branches/br-never-000000`, { key: sim.owner.key })).status).toBe(204);
    const list = BranchesResponseSchema.parse((await sim.call('GET', `/projects/${sim.project.id}/branches`, { key: sim.owner.key })).body);
    expect(list.branches.map((b) => b.name)).toEqual(['main']);
  });

  it('refuses with 409 to delete the default branch or a branch with children', async () => {
    const sim = withProject();
    const parent = sim.cp.addBranch({ projectId: sim.project.id, name: 'parent' });
    sim.cp.addBranch({ projectId: sim.project.id, name: 'child', parentId: parent.id });
    const main = await sim.call('DELETE', `/projects/${sim.project.id}/branches/${sim.project.defaultBranchId}`, { key: sim.owner.key });
    expect(main.status).toBe(409);
    expect(json(main).message).toMatch(/default branch/);
    const withChildren = await sim.call('DELETE', `/projects/${sim.project.id}/branches/${parent.id}`, { key: sim.owner.key });
    expect(withChildren.status).toBe(409);
    expect(json(withChildren).message).toMatch(/child branches/);
  });

  it('lists computes and starts, suspends and restarts them with 200 {endpoint, operations}', async () => {
    const sim = withProject();
    const { endpointId } = sim.cp.addBranch({ projectId: sim.project.id, name: 'app', compute: 'idle' });
    const list = EndpointsResponseSchema.parse((await sim.call('GET', `/projects/${sim.project.id}/endpoints`, { key: sim.owner.key })).body);
    expect(list.endpoints.map((e) => [e.id, e.current_state])).toEqual([[endpointId, 'idle']]);

    const base = `/projects/${sim.project.id}/endpoints/${endpointId!}`;
    const start = EndpointOperationsSchema.parse((await sim.call('POST', `${base}/start`, { key: sim.owner.key })).body);
    expect(start.operations.map((o) => o.action)).toEqual(['start_compute']);
    sim.clock.advance(10 * SECOND);
    const restart = EndpointOperationsSchema.parse((await sim.call('POST', `${base}/restart`, { key: sim.owner.key })).body);
    expect(restart.operations.map((o) => o.action)).toEqual(['suspend_compute', 'start_compute']);
    sim.clock.advance(15 * SECOND);
    const suspend = EndpointOperationsSchema.parse((await sim.call('POST', `${base}/suspend`, { key: sim.owner.key })).body);
    expect(suspend.endpoint?.current_state).toBe('active');
    expect(suspend.operations.map((o) => o.action)).toEqual(['suspend_compute']);
    expect((await sim.call('POST', `/projects/${sim.project.id}/endpoints/ep-none-000000/start`, { key: sim.owner.key })).status).toBe(404);
  });
});

describe('423 Locked', () => {
  it('refuses a mutation while a user-visible operation is running and accepts it after it finishes', async () => {
    const sim = withProject();
    sim.cp.addOperation({ projectId: sim.project.id, action: 'apply_config', startAs: 'running', durationMs: 4000, fail: false });
    const refused = await sim.call('POST', `/projects/${sim.project.id}/branches`, { key: sim.owner.key });
    expect(refused.status).toBe(423);
    expect(json(refused).message).toMatch(/running operations/);
    expect(refused.requestId).toBe(json(refused).request_id);
    sim.clock.advance(4000);
    expect((await sim.call('POST', `/projects/${sim.project.id}/branches`, { key: sim.owner.key })).status).toBe(201);
    expect((await sim.call('POST', `/projects/${sim.project.id}/branches`, { key: sim.owner.key })).status).toBe(423);
  });
});
