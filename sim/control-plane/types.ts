// The control plane's public vocabulary: who acts, and what the builders and requests take.
import type { Clock } from '../clock';
import type { OperationStatus } from '../wire';

export type OrgRole = 'admin' | 'member';

export type ApiKeyScope =
  { kind: 'personal'; userId: string } | { kind: 'organization'; orgId: string } | { kind: 'project'; orgId: string; projectId: string };

/** Who a request acts as, resolved from its API key. */
export type Principal =
  | { kind: 'personal'; keyId: number; userId: string }
  | { kind: 'organization'; keyId: number; orgId: string }
  | { kind: 'project'; keyId: number; orgId: string; projectId: string };

export type ComputeState = 'init' | 'active' | 'idle';

export interface ControlPlaneOptions {
  clock: Clock;
  /** Source of all simulated randomness (ids, timings, failures); seeded by default. Secrets never use it. */
  random?: () => number;
  /** Share of live operations whose first attempt ends `failed` (then retried). Default 0.02. */
  failureRate?: number;
}

export interface AddProjectInput {
  name: string;
  /** Owner of a personal project; for an organization project, who created it (defaults to an admin). */
  ownerId?: string;
  orgId?: string;
  id?: string;
  createdAt?: Date | number;
  regionId?: string;
  pgVersion?: number;
  locked?: boolean;
  /** The default branch's read-write compute: its state, or false for a branch without compute. Default 'idle'. */
  compute?: 'active' | 'idle' | false;
  suspendTimeoutSeconds?: number;
  cpuUsedSec?: number;
  /** No background availability checks on its computes, so its history holds still (the scale test's archive). */
  quiet?: boolean;
}

export interface AddBranchInput {
  projectId: string;
  name: string;
  parentId?: string;
  createdAt?: Date | number;
  /** A read-write compute for the branch: its state, or false (default) for none. */
  compute?: 'active' | 'idle' | false;
}

export interface AddEndpointInput {
  projectId: string;
  branchId: string;
  state?: 'active' | 'idle';
  createdAt?: Date | number;
  /** 0 means the platform default (300 s); -1 never suspends. */
  suspendTimeoutSeconds?: number;
  type?: 'read_write' | 'read_only';
}

export interface AddOperationInput {
  projectId: string;
  action: string;
  branchId?: string;
  endpointId?: string;
  /** Default: now. */
  createdAt?: Date | number;
  /** Freezes the operation at this status (a history entry). Omit for a live lifecycle driven by the clock. */
  status?: OperationStatus;
  /** Live: the initial status (default: `scheduling` for start_compute, `running` otherwise). */
  startAs?: 'scheduling' | 'running';
  /** Frozen: the reported total duration. Live: how long the work runs. */
  durationMs?: number;
  /** Live: force (true) or rule out (false) a failed first attempt; default follows `failureRate`. */
  fail?: boolean;
  /** Frozen failed/error operations: the error text. */
  error?: string;
}

export interface ListProjectsQuery {
  limit?: number;
  cursor?: string;
  search?: string;
  orgId?: string;
}

export interface ListOperationsQuery {
  limit?: number;
  cursor?: string;
}

export const BRANCH_SORT_FIELDS = ['name', 'created_at', 'updated_at'] as const;
export type BranchSortField = (typeof BRANCH_SORT_FIELDS)[number];

export interface ListBranchesQuery {
  /** 1..10000; all branches when absent. */
  limit?: number;
  /** `pagination.next` of the previous page. */
  cursor?: string;
  /** Part of a branch's name or id. */
  search?: string;
  /** Default `updated_at`. */
  sortBy?: BranchSortField;
  /** Default `desc`. */
  sortOrder?: 'asc' | 'desc';
}

export interface CreateBranchInput {
  name?: string;
  parentId?: string;
  endpoints?: { type: 'read_write' | 'read_only' }[];
}

export interface CreateProjectInput {
  name?: string;
  regionId?: string;
  pgVersion?: number;
  orgId?: string;
}
