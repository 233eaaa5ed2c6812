// The response shapes the simulator emits. They start from the console's wire types (src/api/schemas.ts,
// written once) and add the fields the platform's OpenAPI document requires but the console ignores.
import type { ApiKey, ApiKeyCreated, AuthDetails, Branch, Endpoint, Operation, Organization, Project } from '../src/api/schemas';

export type { ApiKey, ApiKeyCreated, AuthDetails, Branch, Endpoint, Operation, Organization, Project };

export const OPERATION_STATUSES = ['scheduling', 'running', 'finished', 'failed', 'error', 'cancelling', 'cancelled', 'skipped'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** Statuses after which an operation never changes again (`failed` may still be retried by the platform). */
export const TERMINAL_STATUSES: ReadonlySet<OperationStatus> = new Set(['finished', 'error', 'cancelled', 'skipped']);

export type WireOperation = Operation & { status: OperationStatus };

export interface WireProjectListItem extends Project {
  owner_id: string;
  active_time: number;
  locked: boolean;
  branch_logical_size_limit_bytes: number;
  store_passwords: boolean;
  creation_source: string;
  history_retention_seconds: number;
  default_endpoint_settings: { autoscaling_limit_min_cu: number; autoscaling_limit_max_cu: number; suspend_timeout_seconds: number };
  settings: { allowed_ips: { ips: string[]; protected_branches_only: boolean }; enable_logical_replication: boolean };
  compute_last_active_at?: string;
  org_name?: string;
}

export interface WireProject extends WireProjectListItem {
  active_time_seconds: number;
  compute_time_seconds: number;
  written_data_bytes: number;
  data_transfer_bytes: number;
  data_storage_bytes_hour: number;
  consumption_period_start: string;
  consumption_period_end: string;
  owner: { email: string; name: string; branches_limit: number; subscription_type: string };
}

export interface WireBranch extends Branch {
  state_changed_at: string;
  creation_source: string;
  protected: boolean;
  logical_size: number;
  init_source: string;
  cpu_used_sec: number;
  active_time_seconds: number;
  compute_time_seconds: number;
  written_data_bytes: number;
  data_transfer_bytes: number;
  parent_lsn?: string;
}

export interface WireEndpoint extends Endpoint {
  settings: { pg_settings: Record<string, string> };
  pooler_enabled: boolean;
  pooler_mode: 'transaction';
  disabled: boolean;
  passwordless_access: boolean;
  creation_source: string;
  proxy_host: string;
  provisioner: string;
  last_active?: string;
  started_at?: string;
  suspended_at?: string;
}

export interface WireRole {
  branch_id: string;
  name: string;
  protected: boolean;
  created_at: string;
  updated_at: string;
}

export interface WireDatabase {
  id: number;
  branch_id: string;
  name: string;
  owner_name: string;
  created_at: string;
  updated_at: string;
}

export interface WireConnectionDetails {
  connection_uri: string;
  connection_parameters: { database: string; password: string; role: string; host: string; pooler_host: string };
}

export interface WireApiKeyRevoked {
  id: number;
  name: string;
  created_at: string;
  created_by: string;
  last_used_at: string | null;
  last_used_from_addr: string;
  revoked: boolean;
  project_id?: string;
}

export interface WireBranchesPage {
  branches: WireBranch[];
  annotations: Record<string, never>;
  /** `next` is present while more branches follow; pass it back as `cursor`. */
  pagination: { next?: string; sort_by: string; sort_order: string };
}

export interface WireBranchDetails {
  branch: WireBranch;
  annotation: { object: { type: string; id: string }; value: Record<string, string>; created_at: string; updated_at: string };
}

/** GET /users/me. */
export interface WireCurrentUser {
  id: string;
  email: string;
  /** Deprecated on the platform (the email again), still required. */
  login: string;
  name: string;
  last_name: string;
  image: string;
  auth_accounts: { provider: string; email: string; name: string; login: string; image: string }[];
  plan: string;
  projects_limit: number;
  branches_limit: number;
  max_autoscaling_limit: number;
  active_seconds_limit: number;
  compute_seconds_limit: number;
}

export interface WireOperationsPage {
  operations: WireOperation[];
  pagination?: { cursor: string };
}

export interface WireProjectsPage {
  projects: WireProjectListItem[];
  pagination?: { cursor: string };
  applications: Record<string, string[]>;
  integrations: Record<string, string[]>;
}

export interface WireBranchCreated {
  branch: WireBranch;
  endpoints: WireEndpoint[];
  operations: WireOperation[];
  roles: WireRole[];
  databases: WireDatabase[];
}

export interface WireProjectCreated {
  project: WireProject;
  branch: WireBranch;
  endpoints: WireEndpoint[];
  operations: WireOperation[];
  roles: WireRole[];
  databases: WireDatabase[];
  connection_uris: WireConnectionDetails[];
}

export interface WireErrorBody {
  code: string;
  message: string;
  request_id: string;
}

/** The platform's wire timestamps have second precision: `2026-11-22T11:59:58Z`. */
export function wireTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Operation list cursors carry microseconds: `2026-11-22T11:59:58.123456Z`. */
export function cursorTime(us: number): string {
  const seconds = Math.floor(us / 1_000_000);
  const fraction = String(us - seconds * 1_000_000).padStart(6, '0');
  return `${wireTime(seconds * 1000).slice(0, -1)}.${fraction}Z`;
}

const CURSOR_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/** Parses an RFC 3339 UTC timestamp into epoch microseconds; null when it is not one. */
export function parseCursorTime(value: string): number | null {
  const match = CURSOR_PATTERN.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction = ''] = match;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC silently rolls over impossible dates (Feb 30); a cursor must name a real instant.
  if (Number.isNaN(ms) || wireTime(ms) !== `${y}-${mo}-${d}T${h}:${mi}:${s}Z`) return null;
  return ms * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}
