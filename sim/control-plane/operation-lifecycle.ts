// An operation's whole life is planned when it is created (a list of timed steps), and its status at any
// moment is read off that plan against the clock. No timers: advancing the clock is what moves it on.
import { TERMINAL_STATUSES, cursorTime, wireTime, type OperationStatus, type WireOperation } from '../wire';

export interface OperationStep {
  atMs: number;
  status: OperationStatus;
  failuresCount: number;
  error?: string;
  retryAtMs?: number;
}

export interface OperationRecord {
  id: string;
  projectId: string;
  branchId?: string;
  endpointId?: string;
  action: string;
  /** Epoch microseconds, unique within the project so cursors never split or repeat a page. */
  createdUs: number;
  /** Ordered by time; steps[0] is the creation. */
  steps: OperationStep[];
  /** History entries keep their last step forever and report this duration. */
  frozen?: { totalDurationMs: number };
}

export function createdMs(op: OperationRecord): number {
  return Math.floor(op.createdUs / 1000);
}

export function finalStep(op: OperationRecord): OperationStep {
  const last = op.steps[op.steps.length - 1];
  if (!last) throw new Error(`operation ${op.id} has no steps`);
  return last;
}

export function stepAt(op: OperationRecord, nowMs: number): OperationStep {
  if (op.frozen) return finalStep(op);
  for (let i = op.steps.length - 1; i > 0; i--) {
    const step = op.steps[i];
    if (step && step.atMs <= nowMs) return step;
  }
  const first = op.steps[0];
  if (!first) throw new Error(`operation ${op.id} has no steps`);
  return first;
}

/** True while the platform still has work to do on it (including a failed attempt awaiting its retry). */
export function isInProgress(op: OperationRecord, nowMs: number): boolean {
  if (op.frozen) {
    const status = finalStep(op).status;
    return status === 'scheduling' || status === 'running' || status === 'cancelling';
  }
  return finalStep(op).atMs > nowMs;
}

export function operationView(op: OperationRecord, nowMs: number): WireOperation {
  const step = stepAt(op, nowMs);
  const terminal = TERMINAL_STATUSES.has(step.status);
  const created = createdMs(op);
  // Field order follows the platform's responses, so raw JSON reads the same.
  return {
    id: op.id,
    project_id: op.projectId,
    ...(op.branchId === undefined ? {} : { branch_id: op.branchId }),
    ...(op.endpointId === undefined ? {} : { endpoint_id: op.endpointId }),
    action: op.action,
    status: step.status,
    ...(step.error === undefined ? {} : { error: step.error }),
    failures_count: step.failuresCount,
    ...(step.retryAtMs === undefined ? {} : { retry_at: wireTime(step.retryAtMs) }),
    created_at: wireTime(created),
    updated_at: wireTime(step.atMs),
    total_duration_ms: terminal ? (op.frozen?.totalDurationMs ?? step.atMs - created) : 0,
  };
}

export function operationCursor(op: OperationRecord): string {
  return cursorTime(op.createdUs);
}

export interface LivePlan {
  createdMs: number;
  startAs: 'scheduling' | 'running';
  /** When a scheduled operation starts running (its predecessor's end, or a short queueing delay). */
  runAtMs: number;
  /** How long the work takes once running. */
  workMs: number;
  /** Planned failure: the first attempt fails, the platform retries at retry_at, and the retry finishes. */
  failure?: { error: string; retryDelayMs: number };
}

export function planLiveSteps(plan: LivePlan): OperationStep[] {
  const steps: OperationStep[] = [];
  if (plan.startAs === 'scheduling') {
    steps.push({ atMs: plan.createdMs, status: 'scheduling', failuresCount: 0 });
    steps.push({ atMs: Math.max(plan.runAtMs, plan.createdMs), status: 'running', failuresCount: 0 });
  } else {
    steps.push({ atMs: plan.createdMs, status: 'running', failuresCount: 0 });
  }
  const runningSince = finalAt(steps);
  if (!plan.failure) {
    steps.push({ atMs: runningSince + plan.workMs, status: 'finished', failuresCount: 0 });
    return steps;
  }
  const failedAt = runningSince + plan.workMs;
  // retry_at goes on the wire with second precision; retrying on a whole second keeps it exact.
  const retryAt = Math.ceil((failedAt + plan.failure.retryDelayMs) / 1000) * 1000;
  steps.push({ atMs: failedAt, status: 'failed', failuresCount: 1, error: plan.failure.error, retryAtMs: retryAt });
  steps.push({ atMs: retryAt, status: 'running', failuresCount: 1 });
  steps.push({ atMs: retryAt + plan.workMs, status: 'finished', failuresCount: 1 });
  return steps;
}

function finalAt(steps: OperationStep[]): number {
  const last = steps[steps.length - 1];
  if (!last) throw new Error('no steps');
  return last.atMs;
}

/** Index of the first operation created at or after `createdUs` (operations sorted oldest first). */
export function lowerBound(ops: readonly OperationRecord[], createdUs: number): number {
  let lo = 0;
  let hi = ops.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const op = ops[mid];
    if (op && op.createdUs < createdUs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
