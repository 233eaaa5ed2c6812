import { expect, test } from '@playwright/test';
import { createApiClient, EndpointType, type Api, type Operation, type ProjectListItem } from '@neondatabase/api-client';
import { E2E_API_KEY } from '../../playwright.config';

// The running server (`npm start`) driven by the platform's official TypeScript client: if this client
// works against the simulator, the simulator speaks the platform's wire format, not only our own.

type Client = Api<unknown>;

interface HttpFailure {
  response?: { status?: unknown; headers?: Record<string, unknown>; data?: unknown };
  config?: { method?: string; url?: string };
}

const RETRYABLE = new Set([423, 429, 503]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The HTTP status of a failed client call, or undefined when the call never got an answer. */
function failureStatus(error: unknown): number | undefined {
  const status = (error as HttpFailure | null)?.response?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Runs a client call, waiting out the statuses the platform documents as safe to retry (423 busy
 * project, 429 with Retry-After, 503). Failures are rethrown without the client's request config, so
 * a failing test never prints an Authorization header.
 */
async function call<T>(request: () => Promise<{ data: T }>, patienceMs = 60_000): Promise<T> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      return (await request()).data;
    } catch (error) {
      const status = failureStatus(error);
      if (status !== undefined && RETRYABLE.has(status) && Date.now() < deadline) {
        const retryAfter = Number((error as HttpFailure).response?.headers?.['retry-after']);
        // wall-clock: a client honours Retry-After in real seconds, as the platform asks of every client.
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 500);
        continue;
      }
      const { config, response } = error as HttpFailure;
      const what = `${config?.method?.toUpperCase() ?? ''} ${config?.url ?? ''}`.trim();
      throw new Error(`${what} failed with ${String(status ?? 'no response')}: ${JSON.stringify(response?.data ?? null)}`);
    }
  }
}

/** The status a call ends with, for calls expected to be refused. */
async function statusOf(request: () => Promise<{ status: number }>): Promise<number> {
  try {
    return (await request()).status;
  } catch (error) {
    const status = failureStatus(error);
    if (status === undefined) throw new Error('the request got no HTTP answer');
    return status;
  }
}

function clientFor(baseURL: string | undefined, apiKey: string): Client {
  if (!baseURL) throw new Error('Playwright baseURL is not set');
  return createApiClient({ apiKey, baseURL: `${baseURL}/api/v2`, timeout: 30_000 });
}

/** Every project of one list (personal, or one organization's), page by page. */
async function listAllProjects(api: Client, orgId?: string): Promise<ProjectListItem[]> {
  const limit = 400;
  const projects: ProjectListItem[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await call(() => api.listProjects({ limit, ...(orgId ? { org_id: orgId } : {}), ...(cursor ? { cursor } : {}) }));
    projects.push(...page.projects);
    if (page.projects.length < limit) return projects;
    cursor = page.pagination?.cursor;
    if (!cursor) throw new Error('a full page of projects came without a cursor');
  }
}

interface OperationsWalk {
  operations: Operation[];
  pages: number;
}

/** Follows the operations cursor until a page is shorter than `limit` (docs/platform-api.md), cursor passed back verbatim. */
async function walkOperations(api: Client, projectId: string, limit: number): Promise<OperationsWalk> {
  const operations: Operation[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await call(() => api.listProjectOperations({ projectId, limit, ...(cursor ? { cursor } : {}) }));
    expect(page.operations.length, `page ${pages} respects limit ${limit}`).toBeLessThanOrEqual(limit);
    operations.push(...page.operations);
    if (page.operations.length < limit) return { operations, pages };
    cursor = page.pagination?.cursor;
    if (!cursor) throw new Error(`page ${pages} was full but carried no cursor`);
  }
}

async function allVisibleProjects(api: Client): Promise<ProjectListItem[]> {
  const { organizations } = await call(() => api.getCurrentUserOrganizations());
  const lists = await Promise.all([listAllProjects(api), ...organizations.map((org) => listAllProjects(api, org.id))]);
  return lists.flat();
}

interface BigProject {
  project: ProjectListItem;
  /** The whole history as walked with the largest page (1000), the oracle for smaller pages. */
  reference: Operation[];
}

let bigProject: BigProject | undefined;

/** The project with a long history (≥ 2,000 operations), found by listing rather than by a known id. */
async function findBigProject(api: Client): Promise<BigProject> {
  if (bigProject) return bigProject;
  for (const project of await allVisibleProjects(api)) {
    const { operations } = await walkOperations(api, project.id, 1000);
    if (operations.length >= 2000) return (bigProject = { project, reference: operations });
  }
  throw new Error('no visible project has 2,000 operations or more');
}

/** Statuses after which the platform still works on the operation (`failed` is retried at `retry_at`). */
const WAITING_STATUSES = new Set(['scheduling', 'running', 'cancelling', 'failed']);

/** Polls one operation, as the spec tells a client to, until it leaves the waiting statuses. */
async function pollUntilSettled(api: Client, projectId: string, operationId: string, timeoutMs: number): Promise<Operation> {
  let last: Operation | undefined;
  await expect
    .poll(
      async () => {
        last = (await call(() => api.getProjectOperation(projectId, operationId))).operation;
        return WAITING_STATUSES.has(last.status);
      },
      { timeout: timeoutMs, intervals: [1_000], message: `operation ${operationId} still in a waiting status` },
    )
    .toBe(false);
  if (!last) throw new Error('the operation was never read');
  return last;
}

test.describe('the official @neondatabase/api-client against npm start', () => {
  test.describe.configure({ timeout: 120_000 });

  test('lists personal projects and each organization’s projects through org_id', async ({ baseURL }) => {
    const api = clientFor(baseURL, E2E_API_KEY);

    const personal = await listAllProjects(api);
    const { organizations } = await call(() => api.getCurrentUserOrganizations());

    expect(personal.length).toBeGreaterThan(0);
    expect(personal.every((project) => !project.org_id)).toBe(true);
    expect(organizations.length).toBeGreaterThan(0);
    const seen = new Set(personal.map((project) => project.id));
    for (const org of organizations) {
      const orgProjects = await listAllProjects(api, org.id);
      expect(orgProjects.length, `projects of ${org.id}`).toBeGreaterThan(0);
      expect(orgProjects.map((project) => project.org_id)).toEqual(orgProjects.map(() => org.id));
      for (const project of orgProjects) {
        expect(seen.has(project.id), `${project.id} is listed once`).toBe(false);
        seen.add(project.id);
      }
    }
  });

  test('walks every operations page of the big project: each operation exactly once, newest first', async ({ baseURL }) => {
    const api = clientFor(baseURL, E2E_API_KEY);
    const { project, reference } = await findBigProject(api);
    const limit = 250;

    const { operations, pages } = await walkOperations(api, project.id, limit);

    expect(pages).toBeGreaterThanOrEqual(Math.ceil(reference.length / limit));
    const ids = operations.map((operation) => operation.id);
    expect(new Set(ids).size, 'no operation repeats across pages').toBe(ids.length);
    const createdAt = operations.map((operation) => Date.parse(operation.created_at));
    const outOfOrder = createdAt.findIndex((time, i) => i > 0 && time > createdAt[i - 1]!);
    expect(outOfOrder, 'operations come newest first').toBe(-1);
    // Everything the 1000-per-page walk saw is here; anything extra was created since, so it is newer.
    const walked = new Set(ids);
    expect(reference.filter((operation) => !walked.has(operation.id))).toEqual([]);
    const referenceIds = new Set(reference.map((operation) => operation.id));
    const newestReference = Date.parse(reference[0]!.created_at);
    const extras = operations.filter((operation) => !referenceIds.has(operation.id));
    expect(extras.filter((operation) => Date.parse(operation.created_at) < newestReference)).toEqual([]);
  });

  test('gets one operation as the list shows it', async ({ baseURL }) => {
    const api = clientFor(baseURL, E2E_API_KEY);
    const { project, reference } = await findBigProject(api);
    const listed = reference[Math.floor(reference.length / 2)]!;

    const { operation } = await call(() => api.getProjectOperation(project.id, listed.id));

    expect(operation).toMatchObject({
      id: listed.id,
      project_id: project.id,
      action: listed.action,
      created_at: listed.created_at,
    });
  });

  test('creates a branch with a read-write compute and polls its operations until they finish', async ({ baseURL }) => {
    const api = clientFor(baseURL, E2E_API_KEY);
    const big = await findBigProject(api);
    const project = (await listAllProjects(api)).find((candidate) => candidate.id !== big.project.id) ?? big.project;

    const created = await call(() =>
      api.createProjectBranch(project.id, {
        branch: { name: `api-client-${Date.now()}` },
        endpoints: [{ type: EndpointType.ReadWrite }],
      }),
    );

    expect(created.branch.project_id).toBe(project.id);
    expect(created.endpoints.map((endpoint) => endpoint.type)).toEqual(['read_write']);
    expect(created.operations.map((operation) => operation.action).sort()).toEqual(['create_branch', 'start_compute']);
    for (const started of created.operations) {
      const settled = await pollUntilSettled(api, project.id, started.id, 90_000);
      expect(settled, `${started.action} ends finished`).toMatchObject({ id: started.id, status: 'finished' });
    }
  });

  test('creates an API key that works until it is revoked, then gets 401', async ({ baseURL }) => {
    const api = clientFor(baseURL, E2E_API_KEY);

    const created = await call(() => api.createApiKey({ key_name: `api-client-${Date.now()}` }));
    const withNewKey = clientFor(baseURL, created.key);

    const seenWithNewKey = await call(() => withNewKey.listProjects({ limit: 400 }));
    expect(seenWithNewKey.projects.length).toBeGreaterThan(0);

    const revoked = await call(() => api.revokeApiKey(created.id));
    expect(revoked).toMatchObject({ id: created.id, revoked: true });
    expect(await statusOf(() => withNewKey.listProjects({}))).toBe(401);
    expect(await statusOf(() => api.listProjects({}))).toBe(200);
  });

  test('a bad key gets 401', async ({ baseURL }) => {
    expect(await statusOf(() => clientFor(baseURL, 'not-a-real-key').listProjects({}))).toBe(401);
    expect(await statusOf(() => clientFor(baseURL, `${E2E_API_KEY}x`).listProjects({}))).toBe(401);
  });
});
