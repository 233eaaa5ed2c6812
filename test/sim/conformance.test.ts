// Every simulator response body, success and error, validated against the platform's OpenAPI document.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ApiKeyCreatedSchema, OperationsPageSchema } from '../../src/api/schemas';
import { PLATFORM_ROUTES } from '../../sim/platform-routes';
import { seedDemo } from '../../sim/seed';
import { SECOND, createSim, type HttpResult } from './support';

// The pinned @neondatabase/api-client ships the platform's OpenAPI document, so the check runs on any
// checkout.
const OPENAPI_PATH = createRequire(import.meta.url).resolve('@neondatabase/api-client/public-v2-for-users.gen.yaml');

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> }>>;
  components: { schemas: Record<string, { enum?: string[] }> & { OperationAction: { enum: string[] } } };
}

const document = parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;
const DOCUMENTED_ACTIONS = new Set(document.components.schemas.OperationAction.enum);
/** Actions the seed uses on purpose although the document does not list them. */
const UNDOCUMENTED_ACTIONS = new Set(['delete_tenant']);

// Actions are open strings on the platform (new ones appear every few months; the seed's delete_tenant
// is one), so the check accepts any action here and a test below pins which ones fall outside the enum.
document.components.schemas.OperationAction = { type: 'string' } as unknown as { enum: string[] };

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema(document, 'neon');

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

const validators = new Map<string, ValidateFunction>();

function validatorFor(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

/** The documented response schema of `method path` for `status`, following a `#/components/responses` ref. */
function responseSchemaRef(path: string, method: string, status: number): string {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
  const response = operation.responses[String(status)];
  if (!response) throw new Error(`${method.toUpperCase()} ${path} documents no ${status} response`);
  if (response.$ref) {
    const name = response.$ref.replace('#/components/responses/', '');
    return `neon#/${pointer('components', 'responses', name, 'content', 'application/json', 'schema')}`;
  }
  return `neon#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
}

function expectDocumented(result: HttpResult, path: string, method: string): void {
  const ref = result.status >= 400 ? 'neon#/components/schemas/GeneralError' : responseSchemaRef(path, method, result.status);
  const validate = validatorFor(ref);
  const valid = validate(result.body);
  expect(valid, `${method.toUpperCase()} ${path} → ${result.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  expect(result.requestId).toBeTruthy();
}

function world() {
  const sim = createSim({ failureRate: 0.02, rateLimits: false });
  const seed = seedDemo(sim.cp, { apiKey: 'conformance-key' });
  const key = seed.apiKey;
  const orgKey = sim.cp.issueApiKey({ kind: 'organization', orgId: seed.orgIds.acme }, 'ci').secret;
  return { ...sim, seed, key, orgKey };
}

describe('OpenAPI conformance', () => {
  it('validates the ajv setup itself: a body missing a required field is rejected', () => {
    const validate = validatorFor(responseSchemaRef('/projects/{project_id}/operations', 'get', 200));
    expect(validate({ operations: [{ id: 'not-a-uuid', project_id: 'p' }] })).toBe(false);
    expect(validatorFor('neon#/components/schemas/GeneralError')({ message: 'no code' })).toBe(false);
  });

  it('answers identity and organization requests as documented', async () => {
    const w = world();
    expectDocumented(await w.call('GET', '/auth', { key: w.key }), '/auth', 'get');
    expectDocumented(await w.call('GET', '/auth', { key: w.orgKey }), '/auth', 'get');
    expectDocumented(await w.call('GET', '/users/me/organizations', { key: w.key }), '/users/me/organizations', 'get');
    expectDocumented(await w.call('GET', '/users/me/organizations', { key: w.orgKey }), '/users/me/organizations', 'get');
    const members = `/organizations/${w.seed.orgIds.acme}/members`;
    for (const key of [w.key, w.orgKey]) {
      const listed = await w.call('GET', members, { key });
      expect(listed.status).toBe(200);
      expectDocumented(listed, '/organizations/{org_id}/members', 'get');
    }
  });

  it('answers API key requests as documented', async () => {
    const w = world();
    const created = await w.call('POST', '/api_keys', { key: w.key, body: { key_name: 'laptop' } });
    expectDocumented(created, '/api_keys', 'post');
    expectDocumented(await w.call('GET', '/api_keys', { key: w.key }), '/api_keys', 'get');
    const { id } = ApiKeyCreatedSchema.parse(created.body);
    expectDocumented(await w.call('DELETE', `/api_keys/${id}`, { key: w.key }), '/api_keys/{key_id}', 'delete');

    const orgPath = `/organizations/${w.seed.orgIds.acme}/api_keys`;
    const orgKey = await w.call('POST', orgPath, { key: w.key, body: { key_name: 'deploy' } });
    expectDocumented(orgKey, '/organizations/{org_id}/api_keys', 'post');
    const projectKey = await w.call('POST', orgPath, { key: w.key, body: { key_name: 'prod', project_id: w.seed.projectIds.big } });
    expectDocumented(projectKey, '/organizations/{org_id}/api_keys', 'post');
    expectDocumented(await w.call('GET', orgPath, { key: w.key }), '/organizations/{org_id}/api_keys', 'get');
    const revoked = await w.call('DELETE', `${orgPath}/${ApiKeyCreatedSchema.parse(projectKey.body).id}`, { key: w.key });
    expect(revoked.status).toBe(200);
    expectDocumented(revoked, '/organizations/{org_id}/api_keys/{key_id}', 'delete');
  });

  it('answers project requests as documented', async () => {
    const w = world();
    expectDocumented(await w.call('GET', '/projects', { key: w.key }), '/projects', 'get');
    expectDocumented(await w.call('GET', `/projects?org_id=${w.seed.orgIds.acme}&limit=1`, { key: w.key }), '/projects', 'get');
    expectDocumented(await w.call('GET', '/projects?search=no-such-name', { key: w.key }), '/projects', 'get');
    for (const id of Object.values(w.seed.projectIds)) {
      expectDocumented(await w.call('GET', `/projects/${id}`, { key: w.key }), '/projects/{project_id}', 'get');
    }
    const created = await w.call('POST', '/projects', { key: w.key, body: { project: { name: 'new-app', org_id: w.seed.orgIds.acme } } });
    expect(created.status).toBe(201);
    expectDocumented(created, '/projects', 'post');
    const deleted = await w.call('DELETE', `/projects/${w.seed.projectIds.personal}`, { key: w.key });
    expect(deleted.status).toBe(200);
    expectDocumented(deleted, '/projects/{project_id}', 'delete');
  });

  it('answers every page of operations and every kind of operation as documented', async () => {
    const w = world();
    const path = '/projects/{project_id}/operations';
    for (const projectId of Object.values(w.seed.projectIds)) {
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await w.call('GET', `/projects/${projectId}/operations?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: w.key });
        expectDocumented(res, path, 'get');
        const body = OperationsPageSchema.parse(res.body);
        if (body.operations.length === 0) break;
        cursor = body.pagination?.cursor;
      }
    }
    // One of each status, live or historic, through the single-operation endpoint.
    const byStatus = new Map(w.cp.operationsOf(w.seed.projectIds.big).map((o) => [o.status, o]));
    for (const id of Object.values(w.seed.projectIds)) for (const o of w.cp.operationsOf(id)) byStatus.set(o.status, o);
    w.cp.addOperation({ projectId: w.seed.projectIds.empty, action: 'apply_config', status: 'cancelling' });
    const cancelling = w.cp.operationsOf(w.seed.projectIds.empty)[0]!;
    byStatus.set('cancelling', cancelling);
    expect([...byStatus.keys()].sort()).toEqual(['cancelled', 'cancelling', 'error', 'failed', 'finished', 'running', 'scheduling', 'skipped']);
    for (const op of byStatus.values()) {
      const res = await w.call('GET', `/projects/${op.project_id}/operations/${op.id}`, { key: w.key });
      expectDocumented(res, '/projects/{project_id}/operations/{operation_id}', 'get');
    }
  });

  it('uses only documented actions apart from the ones seeded on purpose', () => {
    const w = world();
    w.clock.advance(60 * 60 * SECOND);
    const actions = new Set(Object.values(w.seed.projectIds).flatMap((id) => w.cp.operationsOf(id).map((o) => o.action)));
    const undocumented = [...actions].filter((a) => !DOCUMENTED_ACTIONS.has(a));
    expect(new Set(undocumented)).toEqual(UNDOCUMENTED_ACTIONS);
  });

  it('answers branch and compute requests as documented', async () => {
    const w = world();
    const projectId = w.seed.projectIds.storefront;
    w.clock.advance(30 * SECOND);
    expectDocumented(await w.call('GET', `/projects/${projectId}/branches`, { key: w.key }), '/projects/{project_id}/branches', 'get');
    const withCompute = await w.call('POST', `/projects/${projectId}/branches`, {
      key: w.key,
      body: { branch: { name: 'checkout-v2' }, endpoints: [{ type: 'read_write' }] },
    });
    expect(withCompute.status).toBe(201);
    expectDocumented(withCompute, '/projects/{project_id}/branches', 'post');
    w.clock.advance(30 * SECOND);
    const bare = await w.call('POST', `/projects/${projectId}/branches`, { key: w.key });
    expectDocumented(bare, '/projects/{project_id}/branches', 'post');
    w.clock.advance(30 * SECOND);

    const endpoints = await w.call('GET', `/projects/${projectId}/endpoints`, { key: w.key });
    expectDocumented(endpoints, '/projects/{project_id}/endpoints', 'get');
    const endpointId = w.seed.endpointIds.bigMain;
    const big = w.seed.projectIds.big;
    w.clock.advance(30 * SECOND);
    for (const action of ['restart', 'suspend', 'start'] as const) {
      const res = await w.call('POST', `/projects/${big}/endpoints/${endpointId}/${action}`, { key: w.key });
      expect(res.status).toBe(200);
      expectDocumented(res, `/projects/{project_id}/endpoints/{endpoint_id}/${action}`, 'post');
      w.clock.advance(30 * SECOND);
    }

    const branchId = (withCompute.body as { branch: { id: string } }).branch.id;
    const deleted = await w.call('DELETE', `/projects/${projectId}/branches/${branchId}`, { key: w.key });
    expect(deleted.status).toBe(200);
    expectDocumented(deleted, '/projects/{project_id}/branches/{branch_id}', 'delete');
  });

  it('answers the routes the platform’s CLI calls as documented', async () => {
    const w = world();
    expectDocumented(await w.call('GET', '/users/me', { key: w.key }), '/users/me', 'get');
    expectDocumented(await w.call('GET', '/projects/shared?limit=100', { key: w.key }), '/projects/shared', 'get');
    const projectId = w.seed.projectIds.big;
    const list = await w.call('GET', `/projects/${projectId}/branches?limit=2&sort_by=created_at&sort_order=asc`, { key: w.key });
    expectDocumented(list, '/projects/{project_id}/branches', 'get');
    expectDocumented(await w.call('GET', `/projects/${projectId}/branches/count`, { key: w.key }), '/projects/{project_id}/branches/count', 'get');
    for (const branchId of (list.body as { branches: { id: string }[] }).branches.map((b) => b.id)) {
      const base = `/projects/${projectId}/branches/${branchId}`;
      expectDocumented(await w.call('GET', base, { key: w.key }), '/projects/{project_id}/branches/{branch_id}', 'get');
      expectDocumented(await w.call('GET', `${base}/databases`, { key: w.key }), '/projects/{project_id}/branches/{branch_id}/databases', 'get');
      expectDocumented(await w.call('GET', `${base}/roles`, { key: w.key }), '/projects/{project_id}/branches/{branch_id}/roles', 'get');
    }
  });

  it('knows every route of the OpenAPI document, and no other, to tell an unsimulated route (501) from none (404)', () => {
    const methods = ['get', 'post', 'put', 'patch', 'delete'];
    const documented = Object.entries(document.paths).map(([path, item]) => [
      path,
      methods
        .filter((m) => m in item)
        .join(' ')
        .toUpperCase(),
    ]);
    expect(Object.fromEntries(PLATFORM_ROUTES)).toEqual(Object.fromEntries(documented));
  });

  it('answers every error status with the documented GeneralError body', async () => {
    const w = world();
    const big = w.seed.projectIds.big;
    const limited = createSim();
    const user = limited.personalUser();
    for (let i = 0; i < 40; i++) await limited.call('GET', '/auth', { key: user.key });
    const mainBranch = await defaultBranch(w, big);
    const errors: [number, HttpResult][] = [
      [400, await w.call('GET', `/projects/${big}/operations?limit=0`, { key: w.key })],
      [400, await w.call('GET', `/projects/${big}/operations?cursor=soon`, { key: w.key })],
      [400, await w.call('POST', '/api_keys', { key: w.key, body: { key_name: '' } })],
      [401, await w.call('GET', '/projects')],
      [401, await w.call('GET', '/projects', { key: 'wrong' })],
      [403, await w.call('GET', `/organizations/${w.seed.orgIds.northwind}/api_keys`, { key: w.key })],
      [404, await w.call('GET', '/projects/does-not-exist', { key: w.key })],
      [404, await w.call('GET', '/no/such/route', { key: w.key })],
      [403, await w.call('GET', '/users/me', { key: w.orgKey })],
      [404, await w.call('GET', `/projects/${big}/branches/br-none-000000`, { key: w.key })],
      [501, await w.call('PATCH', `/projects/${big}`, { key: w.key, body: { project: { name: 'renamed' } } })],
      [409, await w.call('DELETE', `/projects/${big}/branches/${mainBranch}`, { key: w.key })],
      [423, await w.call('POST', `/projects/${w.seed.projectIds.locked}/branches`, { key: w.key })],
      [429, await limited.call('GET', '/auth', { key: user.key })],
    ];
    for (const [status, res] of errors) {
      expect(res.status).toBe(status);
      expectDocumented(res, '', 'error');
    }
  });
});

async function defaultBranch(w: ReturnType<typeof world>, projectId: string): Promise<string> {
  const res = await w.call('GET', `/projects/${projectId}/branches`, { key: w.key });
  const { branches } = res.body as { branches: { id: string; default: boolean }[] };
  const main = branches.find((b) => b.default);
  if (!main) throw new Error('no default branch');
  return main.id;
}
