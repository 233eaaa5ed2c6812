import { expect, type APIRequestContext, type APIResponse } from '@playwright/test';
import { E2E_HUGE_PROJECT_OPERATIONS } from '../../../playwright.config';

// The API as a test reads it directly, with a bearer key: the oracle the screens are checked against.

export interface ApiOperation {
  id: string;
  project_id: string;
  action: string;
  status: string;
  failures_count: number;
  created_at: string;
  updated_at: string;
  total_duration_ms: number;
  /** When a failed operation is tried again, if it will be. */
  retry_at?: string;
}

export interface ApiProject {
  id: string;
  name: string;
  locked?: boolean;
}

export interface ApiOrganization {
  id: string;
  name: string;
}

/** A project together with the organization whose list it is in (none: a personal project). */
export interface ListedProject extends ApiProject {
  organization: ApiOrganization | null;
}

interface OperationsPage {
  operations: ApiOperation[];
  pagination?: { cursor: string };
}

/** The largest page the platform allows: walking a long history costs few requests. */
const WALK_LIMIT = 1000;

export class ControlApi {
  constructor(
    private readonly request: APIRequestContext,
    private readonly apiKey: string,
  ) {}

  private headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.apiKey}`, Accept: 'application/json' };
  }

  async get<T>(path: string, params?: Record<string, string | number>): Promise<T> {
    const response = await this.request.get(`/api/v2${path}`, { headers: this.headers(), params });
    expect(response.status(), `GET ${path}: ${await response.text()}`).toBe(200);
    return (await response.json()) as T;
  }

  async post<T>(path: string, data: unknown): Promise<T> {
    const response = await this.request.post(`/api/v2${path}`, { headers: this.headers(), data });
    expect([200, 201], `POST ${path} answered ${response.status()}`).toContain(response.status());
    return (await response.json()) as T;
  }

  async delete(path: string): Promise<void> {
    const response = await this.request.delete(`/api/v2${path}`, { headers: this.headers() });
    expect([200, 204], `DELETE ${path} answered ${response.status()}`).toContain(response.status());
  }

  /** Personal projects and those of every organization the key's user belongs to. */
  async allProjects(): Promise<ListedProject[]> {
    const personal = (await this.projects()).map((p) => ({ ...p, organization: null }));
    const { organizations } = await this.get<{ organizations: ApiOrganization[] }>('/users/me/organizations');
    const perOrg = await Promise.all(
      organizations.map(async (org) => (await this.projects(org.id)).map((p) => ({ ...p, organization: { id: org.id, name: org.name } }))),
    );
    const byId = new Map<string, ListedProject>();
    // An org's own list wins over the personal one: that is where the console shows the project.
    for (const project of [...personal, ...perOrg.flat()]) byId.set(project.id, project);
    return [...byId.values()];
  }

  async projects(orgId?: string): Promise<ApiProject[]> {
    const all: ApiProject[] = [];
    let cursor: string | undefined;
    for (;;) {
      const params: Record<string, string | number> = { limit: 400 };
      if (orgId) params.org_id = orgId;
      if (cursor) params.cursor = cursor;
      const page = await this.get<{ projects: ApiProject[]; pagination?: { cursor: string } }>('/projects', params);
      all.push(...page.projects);
      if (page.projects.length < 400 || !page.pagination?.cursor) return all;
      cursor = page.pagination.cursor;
    }
  }

  /** A project's whole history (or its newest `upTo`), newest first, walked page by page as the platform documents it. */
  async operations(projectId: string, limit = WALK_LIMIT, upTo = Infinity): Promise<ApiOperation[]> {
    const all: ApiOperation[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 1_000; pages++) {
      const params: Record<string, string | number> = { limit };
      if (cursor !== undefined) params.cursor = cursor;
      const page = await this.get<OperationsPage>(`/projects/${encodeURIComponent(projectId)}/operations`, params);
      all.push(...page.operations);
      if (page.operations.length < limit || !page.pagination || all.length >= upTo) return all;
      cursor = page.pagination.cursor;
    }
    throw new Error(`the operations of ${projectId} did not end after 1,000 pages`);
  }

  /** The newest `limit` operations: the first page, as the console fetches it. */
  async newestOperations(projectId: string, limit: number): Promise<ApiOperation[]> {
    const page = await this.get<OperationsPage>(`/projects/${encodeURIComponent(projectId)}/operations`, { limit });
    return page.operations;
  }

  async operation(projectId: string, operationId: string): Promise<ApiOperation> {
    const body = await this.get<{ operation: ApiOperation }>(`/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`);
    return body.operation;
  }
}

export type CountedProject = ListedProject & { operationCount: number };

export interface ProjectCensus {
  /** The project with the longest history. */
  big: CountedProject;
  /** Projects that accept changes and have some history, personal ones first, then smallest first. */
  small: CountedProject[];
  /** Projects without a single operation. */
  empty: CountedProject[];
}

/** A history this long is the scale project's, acme-event-archive (SIM_HUGE_PROJECT in playwright.config.ts). */
export const HUGE_HISTORY = E2E_HUGE_PROJECT_OPERATIONS;

/** The scale project, acme-event-archive: HUGE_HISTORY operations (SIM_HUGE_PROJECT on the lanes' servers). */
export async function scaleProject(api: ControlApi): Promise<ApiProject> {
  const project = (await api.allProjects()).find((p) => p.name === 'acme-event-archive');
  if (!project) throw new Error('acme-event-archive is missing: is SIM_HUGE_PROJECT set for the e2e server?');
  return project;
}

/** Sorts the demo projects by how much history they have (ids are never hard-coded). */
/** This many operations make a history the scale project's: the census stops counting there. */
const CENSUS_CAP = HUGE_HISTORY;

export async function projectCensus(api: ControlApi): Promise<ProjectCensus> {
  const projects = await api.allProjects();
  const counted = await Promise.all(projects.map(async (p) => ({ ...p, operationCount: (await api.operations(p.id, WALK_LIMIT, CENSUS_CAP)).length })));
  counted.sort((a, b) => b.operationCount - a.operationCount);
  // The scale project (SIM_HUGE_PROJECT) is scale.spec.ts's alone: not one to page through by hand
  // (and not one to walk to its end for every test that takes the census).
  const [big] = counted.filter((p) => p.operationCount < CENSUS_CAP);
  if (!big) throw new Error('the demo seed has no projects');
  return {
    big,
    small: counted
      .filter((p) => p !== big && p.operationCount > 0 && p.operationCount < CENSUS_CAP && p.locked !== true)
      .sort((a, b) => Number(a.organization !== null) - Number(b.organization !== null) || a.operationCount - b.operationCount),
    empty: counted.filter((p) => p.operationCount === 0),
  };
}

/** The console's label for each API status (docs/platform-api.md); anything else is shown raw. */
const STATUS_LABELS: Record<string, string> = {
  scheduling: 'Scheduling',
  running: 'In progress',
  cancelling: 'In progress (cancelling)',
  finished: 'OK',
  failed: 'Error',
  error: 'Error',
  cancelled: 'Cancelled',
  skipped: 'Skipped',
};

export function expectedLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

/**
 * Waits until no operation of the project holds it (what would make a change answer 423): none scheduling, running or
 * cancelling, none failed with a retry still to come. For a test whose change is not about a busy project, started
 * after a spec that left one (a branch it deleted on the way out).
 */
export async function untilSettled(api: ControlApi, projectId: string): Promise<void> {
  const holding = async () =>
    (await api.get<OperationsPage>(`/projects/${encodeURIComponent(projectId)}/operations`, { limit: 100 })).operations
      .filter((op) => op.action !== 'check_availability')
      .filter(
        (op) =>
          ['scheduling', 'running', 'cancelling'].includes(op.status) ||
          (op.status === 'failed' && op.retry_at !== undefined && Date.parse(op.retry_at) > Date.now()),
      )
      .map((op) => `${op.action} ${op.status}`);
  await expect.poll(holding, { timeout: 45_000 }).toEqual([]);
}

/**
 * Sends a change again while the project is busy with another operation (423, safe to retry: docs/platform-api.md),
 * until the API takes it or answers anything else (earlier specs may have left the project busy).
 */
export async function sendWhenNotBusy(send: () => Promise<APIResponse>, timeout = 30_000): Promise<APIResponse> {
  let response: APIResponse | undefined;
  await expect(async () => {
    response = await send();
    expect(response.status(), 'the project is still busy').not.toBe(423);
  }).toPass({ timeout, intervals: [250, 500, 1_000] });
  if (!response) throw new Error('no change was sent');
  return response;
}
