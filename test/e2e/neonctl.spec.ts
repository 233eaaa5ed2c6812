import { expect, test, type APIRequestContext } from '@playwright/test';
import * as z from 'zod/mini';
import { E2E_API_KEY } from '../../playwright.config';
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  ApiKeyRevokedSchema,
  AuthDetailsSchema,
  BranchSchema,
  EndpointSchema,
  OperationSchema,
  OperationsPageSchema,
  OrganizationSchema,
  ProjectSchema,
  ProjectsPageSchema,
} from '../../src/api/schemas';
import { ControlApi, untilSettled } from './support/api';
import { clearFaults, setFaults } from './support/faults';
import { neonctl, type Neonctl } from './support/neonctl';

// The platform's own CLI (neonctl) pointed at `npm start`: each command the console's domain has exits 0
// with JSON that matches what the simulator holds, read back through the API or known from the seed.

const CurrentUserSchema = z.object({ id: z.string(), email: z.string(), name: z.string() });
const DatabaseSchema = z.object({ id: z.number(), branch_id: z.string(), name: z.string(), owner_name: z.string() });
const RoleSchema = z.object({ branch_id: z.string(), name: z.string() });
const FaultsStateSchema = z.object({ rules: z.array(z.unknown()), injected: z.number() });

/** The seed's personal project with a little history (sim/seed.ts). */
const PERSONAL_PROJECT = 'blog-backend';

const ids = (items: readonly { id: string | number }[]) => items.map((item) => item.id).sort();

// Each command is a Node process loading the whole CLI: a test of ten commands takes 20–35 s beside two other
// browser lanes on two cores, and went past 2 minutes beside a second CI run, so a test gets four.
test.describe.configure({ timeout: 240_000 });

let cli: Neonctl;

test.beforeEach(async ({ baseURL }) => {
  cli = await neonctl(baseURL, E2E_API_KEY);
});

test.afterEach(async () => {
  await cli.dispose();
});

/** GET through the API as the oracle, parsed with the console's own schema. */
async function read<T>(api: ControlApi, path: string, schema: { parse(value: unknown): T }): Promise<T> {
  return schema.parse(await api.get<unknown>(path));
}

async function personalProject(api: ControlApi): Promise<z.infer<typeof ProjectSchema>> {
  const project = (await read(api, '/projects?limit=400', ProjectsPageSchema)).projects.find((p) => p.name === PERSONAL_PROJECT);
  if (!project) throw new Error(`the seed has no personal project ${PERSONAL_PROJECT}`);
  return project;
}

async function statusOf(request: APIRequestContext, path: string, apiKey = E2E_API_KEY): Promise<number> {
  const response = await request.get(`/api/v2${path}`, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' } });
  return response.status();
}

test('reads who the key is, its organizations, projects, operations and branches', async ({ request }) => {
  const api = new ControlApi(request, E2E_API_KEY);

  const me = await cli.json(['me'], CurrentUserSchema);
  expect(me.id).toBe((await read(api, '/auth', AuthDetailsSchema)).account_id);
  expect(me.email).toBe('demo@example.com');

  const orgs = await cli.json(['orgs', 'list'], z.array(OrganizationSchema));
  const apiOrgs = (await read(api, '/users/me/organizations', z.object({ organizations: z.array(OrganizationSchema) }))).organizations;
  expect(orgs.map((o) => [o.id, o.name])).toEqual(apiOrgs.map((o) => [o.id, o.name]));
  expect(orgs.map((o) => o.name)).toEqual(['Acme Analytics', 'Northwind Labs']);

  const listed = await cli.json(['projects', 'list'], z.object({ projects: z.array(ProjectSchema), shared_with_you: z.array(ProjectSchema) }));
  expect(ids(listed.projects)).toEqual(ids(await api.projects()));
  expect(listed.projects.map((p) => p.name)).toContain(PERSONAL_PROJECT);
  expect(listed.shared_with_you).toEqual((await read(api, '/projects/shared?limit=400', ProjectsPageSchema)).projects);

  for (const org of apiOrgs) {
    const inOrg = await cli.json(['projects', 'list', '--org-id', org.id], z.array(ProjectSchema));
    expect(inOrg.length).toBeGreaterThan(0);
    expect(ids(inOrg)).toEqual(ids(await api.projects(org.id)));
  }

  const project = await personalProject(api);
  const got = await cli.json(['projects', 'get', project.id], ProjectSchema);
  expect(got).toMatchObject({ id: project.id, name: project.name, region_id: project.region_id, created_at: project.created_at });

  const operations = await cli.json(['operations', 'list', '--project-id', project.id], z.array(OperationSchema));
  expect(operations.length).toBeGreaterThan(0);
  const created = operations.map((op) => Date.parse(op.created_at));
  expect(created).toEqual([...created].sort((a, b) => b - a));
  // Each one as the API lists it, in the same order (its status may move on between the two reads; what it is
  // does not): one list read, not a read per operation (which took 30 s of this test).
  const identity = ({ id, project_id, branch_id, action, created_at }: z.infer<typeof OperationSchema>) => ({ id, project_id, branch_id, action, created_at });
  const held = new Map((await read(api, `/projects/${project.id}/operations?limit=1000`, OperationsPageSchema)).operations.map((op) => [op.id, op]));
  expect(operations.map(identity)).toEqual(operations.map((op) => held.get(op.id)).map((op) => (op ? identity(op) : undefined)));

  const branches = await cli.json(['branches', 'list', '--project-id', project.id], z.array(BranchSchema));
  expect(ids(branches)).toEqual(ids((await read(api, `/projects/${project.id}/branches`, z.object({ branches: z.array(BranchSchema) }))).branches));
  expect(branches.filter((b) => b.default).map((b) => b.name)).toEqual(['main']);
});

test('creates a branch (waiting out a busy project itself), reads it, its databases and roles, and deletes it', async ({ request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const project = await personalProject(api);
  await untilSettled(api, project.id);
  const name = `cli-${Date.now()}`;

  // The next branch creation finds the project busy, as when another client's operation holds it.
  await setFaults(request, [{ fault: { type: 'status', status: 423 }, method: 'POST', path: `/projects/${project.id}/branches`, count: 1 }]);
  let created: { branch: z.infer<typeof BranchSchema>; endpoints: z.infer<typeof EndpointSchema>[] };
  try {
    created = await cli.json(
      ['branches', 'create', '--project-id', project.id, '--name', name],
      z.object({ branch: BranchSchema, endpoints: z.array(EndpointSchema) }),
    );
    const faults = FaultsStateSchema.parse(await (await request.get('/__sim/faults')).json());
    expect(faults).toEqual({ rules: [], injected: 1 });
  } finally {
    await clearFaults(request);
  }
  expect(created.branch).toMatchObject({ name, project_id: project.id, default: false });
  expect(created.endpoints.map((e) => [e.branch_id, e.type])).toEqual([[created.branch.id, 'read_write']]);
  const branchPath = `/projects/${project.id}/branches/${created.branch.id}`;

  // Compared with the API's own answer read after it: both once the branch is ready, not one either side of it.
  await untilSettled(api, project.id);
  const got = await cli.json(['branches', 'get', name, '--project-id', project.id], BranchSchema);
  expect(got).toEqual((await read(api, branchPath, z.object({ branch: BranchSchema }))).branch);

  const databases = await cli.json(['databases', 'list', '--project-id', project.id, '--branch', name], z.array(DatabaseSchema));
  expect(databases).toEqual((await read(api, `${branchPath}/databases`, z.object({ databases: z.array(DatabaseSchema) }))).databases);
  expect(databases.map((d) => [d.name, d.owner_name])).toEqual([['neondb', 'neondb_owner']]);

  const roles = await cli.json(['roles', 'list', '--project-id', project.id, '--branch', name], z.array(RoleSchema));
  expect(roles).toEqual((await read(api, `${branchPath}/roles`, z.object({ roles: z.array(RoleSchema) }))).roles);
  expect(roles.map((r) => r.name)).toEqual(['neondb_owner']);

  await untilSettled(api, project.id);
  const deleted = await cli.json(['branches', 'delete', created.branch.id, '--project-id', project.id], BranchSchema);
  expect(deleted.id).toBe(created.branch.id);
  expect(await statusOf(request, branchPath)).toBe(404);
});

test('creates an API key that works, lists it, and revokes it so it stops working', async ({ request }) => {
  const api = new ControlApi(request, E2E_API_KEY);
  const name = `cli-${Date.now()}`;

  const created = await cli.json(['api-keys', 'create', '--name', name], ApiKeyCreatedSchema);
  expect(created.name).toBe(name);
  expect(await statusOf(request, '/auth', created.key)).toBe(200);

  const listed = await cli.json(['api-keys', 'list'], ApiKeyListSchema);
  expect(ids(listed)).toEqual(ids(await read(api, '/api_keys', ApiKeyListSchema)));
  expect(listed.find((k) => k.id === created.id)?.name).toBe(name);

  const revoked = await cli.json(['api-keys', 'revoke', String(created.id)], ApiKeyRevokedSchema);
  expect(revoked).toMatchObject({ id: created.id, name, revoked: true });
  expect(await statusOf(request, '/auth', created.key)).toBe(401);
  expect(ids(await read(api, '/api_keys', ApiKeyListSchema))).not.toContain(created.id);
});
