// The wire shapes of the control API as the console reads them: every response is parsed with these.
// Lenient by design: a field is required only where the console reads it (src/ was audited field by
// field; the rest are optional, documented for whoever reads them next), unknown keys are dropped, and
// enum-like fields (status, action, type, auth_method, current_state) stay open strings so a value the
// platform adds tomorrow renders raw instead of failing the parse.
import * as z from 'zod/mini';

const timestamp = z.string();

export const PaginationSchema = z.object({ cursor: z.string() });

export const OperationSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  branch_id: z.optional(z.string()),
  endpoint_id: z.optional(z.string()),
  action: z.string(),
  status: z.string(),
  error: z.optional(z.string()),
  failures_count: z.number(),
  retry_at: z.optional(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
  total_duration_ms: z.number(),
});
export type Operation = z.infer<typeof OperationSchema>;

export const OperationsPageSchema = z.object({
  operations: z.array(OperationSchema),
  pagination: z.optional(PaginationSchema),
});
export type OperationsPage = z.infer<typeof OperationsPageSchema>;

export const OperationResponseSchema = z.object({ operation: OperationSchema });

export const ProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  platform_id: z.optional(z.string()),
  region_id: z.string(),
  provisioner: z.optional(z.string()),
  pg_version: z.number(),
  locked: z.optional(z.boolean()),
  cpu_used_sec: z.number(),
  active_time: z.optional(z.number()),
  proxy_host: z.optional(z.string()),
  branch_logical_size_limit: z.optional(z.number()),
  org_id: z.optional(z.string()),
  owner_id: z.optional(z.string()),
  created_at: timestamp,
  updated_at: z.optional(timestamp),
  /** When one of its computes was last active: the activity view reads recently active projects first. */
  compute_last_active_at: z.optional(timestamp),
});
export type Project = z.infer<typeof ProjectSchema>;

export const ProjectsPageSchema = z.object({
  projects: z.array(ProjectSchema),
  pagination: z.optional(PaginationSchema),
  applications: z.optional(z.record(z.string(), z.array(z.string()))),
  integrations: z.optional(z.record(z.string(), z.array(z.string()))),
});
export type ProjectsPage = z.infer<typeof ProjectsPageSchema>;

export const ProjectResponseSchema = z.object({ project: ProjectSchema });

export const BranchSchema = z.object({
  id: z.string(),
  project_id: z.optional(z.string()),
  parent_id: z.optional(z.string()),
  name: z.string(),
  current_state: z.string(),
  default: z.boolean(),
  protected: z.optional(z.boolean()),
  created_at: timestamp,
  updated_at: z.optional(timestamp),
});
export type Branch = z.infer<typeof BranchSchema>;

export const BranchesResponseSchema = z.object({ branches: z.array(BranchSchema) });

export const EndpointSchema = z.object({
  id: z.string(),
  name: z.optional(z.string()),
  project_id: z.optional(z.string()),
  branch_id: z.string(),
  host: z.optional(z.string()),
  region_id: z.optional(z.string()),
  type: z.string(),
  current_state: z.string(),
  pending_state: z.optional(z.string()),
  autoscaling_limit_min_cu: z.optional(z.number()),
  autoscaling_limit_max_cu: z.optional(z.number()),
  suspend_timeout_seconds: z.optional(z.number()),
  created_at: z.optional(timestamp),
  updated_at: z.optional(timestamp),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export const EndpointsResponseSchema = z.object({ endpoints: z.array(EndpointSchema) });

/** Responses of requests that start operations carry the operations they started. */
export const WithOperationsSchema = z.object({ operations: z.array(OperationSchema) });

export const BranchOperationsSchema = z.object({
  branch: BranchSchema,
  endpoints: z.optional(z.array(EndpointSchema)),
  operations: z.array(OperationSchema),
});

export const EndpointOperationsSchema = z.object({
  endpoint: z.optional(EndpointSchema),
  operations: z.array(OperationSchema),
});

export const ApiKeyCreatorSchema = z.object({ id: z.string(), name: z.string(), image: z.optional(z.string()) });

export const ApiKeySchema = z.object({
  id: z.number(),
  name: z.string(),
  created_at: timestamp,
  created_by: ApiKeyCreatorSchema,
  last_used_at: z.optional(z.nullable(timestamp)),
  last_used_from_addr: z.string(),
  /** Only on organization keys: set when the key is project-scoped. */
  project_id: z.optional(z.string()),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const ApiKeyListSchema = z.array(ApiKeySchema);

/** The one response that carries a secret. Never cache or store it. */
export const ApiKeyCreatedSchema = z.object({
  id: z.number(),
  key: z.string(),
  name: z.string(),
  created_at: timestamp,
  created_by: z.string(),
  project_id: z.optional(z.string()),
});
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;

/** The revoked key: the console reads nothing of it (the list is refetched). */
export const ApiKeyRevokedSchema = z.object({
  id: z.optional(z.number()),
  name: z.optional(z.string()),
  revoked: z.optional(z.boolean()),
  project_id: z.optional(z.string()),
});

export const AuthDetailsSchema = z.object({
  account_id: z.string(),
  auth_method: z.string(),
  auth_data: z.optional(z.string()),
});
export type AuthDetails = z.infer<typeof AuthDetailsSchema>;

/** GET /users/me (personal keys only): who the key's user is, by name. */
export const CurrentUserSchema = z.object({
  id: z.string(),
  name: z.optional(z.string()),
  last_name: z.optional(z.string()),
  email: z.optional(z.string()),
});
export type CurrentUser = z.infer<typeof CurrentUserSchema>;

export const OrganizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  handle: z.optional(z.string()),
  plan: z.optional(z.string()),
  created_at: z.optional(timestamp),
  updated_at: z.optional(timestamp),
  managed_by: z.optional(z.string()),
});
export type Organization = z.infer<typeof OrganizationSchema>;

export const OrganizationsResponseSchema = z.object({ organizations: z.array(OrganizationSchema) });

/** GET /organizations/{org_id}/members: who belongs, and as what (`admin`, `member`, or roles some plans add). */
export const OrganizationMembersSchema = z.object({
  members: z.array(z.object({ member: z.object({ user_id: z.string(), role: z.string() }) })),
});
export type OrganizationMembers = z.infer<typeof OrganizationMembersSchema>;

/** Error body of every non-2xx response. `code` is often empty: branch on the HTTP status. */
export const ApiErrorBodySchema = z.object({
  code: z.optional(z.string()),
  message: z.string(),
  request_id: z.optional(z.string()),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

/** DELETE of a branch: the branch and the operations started, or no body (204) when it was already gone. */
export const BranchDeletedSchema = z.nullable(
  z.object({
    branch: z.optional(BranchSchema),
    operations: z.array(OperationSchema),
  }),
);
