// Reading a request's path parameters, query and JSON body into the control plane's inputs. Anything
// malformed is a 400 that names the field, as the platform answers.
import type { PathParams } from 'msw';
import { BRANCH_SORT_FIELDS, type BranchSortField, type CreateBranchInput, type CreateProjectInput, type ListBranchesQuery } from './control-plane';
import { badRequest } from './http-errors';

export function stringParam(params: PathParams, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw badRequest(`missing path parameter ${name}`);
  return value;
}

export function integerParam(params: PathParams, name: string, wireName: string): number {
  const value = stringParam(params, name);
  if (!/^\d{1,15}$/.test(value)) throw badRequest(`${wireName} must be an integer, got "${value}"`);
  return Number(value);
}

/** `limit` as a number for the control plane to range-check; anything non-integer becomes NaN (a 400). */
export function limitQuery(query: URLSearchParams): { limit?: number } {
  const raw = query.get('limit');
  if (raw === null) return {};
  return { limit: /^-?\d{1,10}$/.test(raw.trim()) ? Number(raw) : Number.NaN };
}

export function optionalQuery<K extends string>(query: URLSearchParams, name: string, key: K): Partial<Record<K, string>> {
  const raw = query.get(name);
  return raw === null ? {} : ({ [key]: raw } as Partial<Record<K, string>>);
}

export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectBody(value: unknown, what: string): JsonObject {
  if (value === undefined) throw badRequest(`${what} is required`);
  if (!isObject(value)) throw badRequest(`${what} must be a JSON object`);
  return value;
}

export function requiredString(body: JsonObject, field: string, path = field): string {
  const value = body[field];
  if (value === undefined) throw badRequest(`${path} is required`);
  if (typeof value !== 'string') throw badRequest(`${path} must be a string`);
  return value;
}

export function optionalString(body: JsonObject, field: string, path = field): string | undefined {
  return body[field] === undefined ? undefined : requiredString(body, field, path);
}

export function branchCreateInput(body: JsonObject): CreateBranchInput {
  const input: CreateBranchInput = {};
  if (body.branch !== undefined) {
    const branch = objectBody(body.branch, 'branch');
    const name = optionalString(branch, 'name', 'branch.name');
    if (name !== undefined) {
      if (name.length < 1 || name.length > 256) throw badRequest('branch.name must be between 1 and 256 characters');
      input.name = name;
    }
    const parentId = optionalString(branch, 'parent_id', 'branch.parent_id');
    if (parentId !== undefined) input.parentId = parentId;
  }
  if (body.endpoints !== undefined) {
    if (!Array.isArray(body.endpoints)) throw badRequest('endpoints must be an array');
    input.endpoints = body.endpoints.map((item: unknown, i) => {
      const endpoint = objectBody(item, `endpoints[${i}]`);
      const type = requiredString(endpoint, 'type', `endpoints[${i}].type`);
      if (type !== 'read_write' && type !== 'read_only') {
        throw badRequest(`endpoints[${i}].type must be "read_write" or "read_only"`);
      }
      return { type };
    });
  }
  return input;
}

export function projectCreateInput(body: JsonObject): CreateProjectInput {
  const project = objectBody(body.project, 'project');
  const input: CreateProjectInput = {};
  const name = optionalString(project, 'name', 'project.name');
  if (name !== undefined) {
    if (name.length < 1 || name.length > 256) throw badRequest('project.name must be between 1 and 256 characters');
    input.name = name;
  }
  const regionId = optionalString(project, 'region_id', 'project.region_id');
  if (regionId !== undefined) input.regionId = regionId;
  const orgId = optionalString(project, 'org_id', 'project.org_id');
  if (orgId !== undefined) input.orgId = orgId;
  if (project.pg_version !== undefined) {
    if (typeof project.pg_version !== 'number' || !Number.isInteger(project.pg_version)) {
      throw badRequest('project.pg_version must be an integer');
    }
    input.pgVersion = project.pg_version;
  }
  return input;
}

/** `limit`, `cursor` and `search` of a projects list (GET /projects, GET /projects/shared). */
export function projectPageQuery(query: URLSearchParams): { limit?: number; cursor?: string; search?: string } {
  return { ...limitQuery(query), ...optionalQuery(query, 'cursor', 'cursor'), ...optionalQuery(query, 'search', 'search') };
}

export function branchListQuery(query: URLSearchParams): ListBranchesQuery {
  const sortBy = query.get('sort_by');
  const sortOrder = query.get('sort_order');
  if (sortBy !== null && !isBranchSortField(sortBy)) throw badRequest(`sort_by must be one of ${BRANCH_SORT_FIELDS.join(', ')}`);
  if (sortOrder !== null && sortOrder !== 'asc' && sortOrder !== 'desc') throw badRequest('sort_order must be asc or desc');
  return {
    ...limitQuery(query),
    ...optionalQuery(query, 'cursor', 'cursor'),
    ...optionalQuery(query, 'search', 'search'),
    ...(sortBy === null ? {} : { sortBy }),
    ...(sortOrder === null ? {} : { sortOrder }),
  };
}

function isBranchSortField(value: string): value is BranchSortField {
  return (BRANCH_SORT_FIELDS as readonly string[]).includes(value);
}
