import { compareTimes } from '../lib/format';
import type { SqlParams } from './sql-params';

// The one place that knows what an operation status means: its label, its tone, its outcome,
// whether it is in flight (and so worth polling: api/retry-policy.ts sets the pace), which of two
// copies is newer, and what its duration is. Every screen asks this module; nothing re-derives it, and
// the store asks it too: the in-flight rule's SQL form (inFlightSql) is built here, from the same rules.

export type StatusTone = 'pending' | 'progress' | 'success' | 'danger' | 'neutral';

/** 'live': work in flight; 'retry': failed, in flight only while the platform may retry it; 'none': over. */
type Pace = 'live' | 'retry' | 'none';

interface StatusRule {
  label: string;
  tone: StatusTone;
  terminal: boolean;
  pace: Pace;
}

const RULES: Record<string, StatusRule> = {
  scheduling: { label: 'Scheduling', tone: 'pending', terminal: false, pace: 'live' },
  running: { label: 'In progress', tone: 'progress', terminal: false, pace: 'live' },
  cancelling: { label: 'In progress (cancelling)', tone: 'progress', terminal: false, pace: 'live' },
  finished: { label: 'OK', tone: 'success', terminal: true, pace: 'none' },
  failed: { label: 'Error', tone: 'danger', terminal: false, pace: 'retry' },
  error: { label: 'Error', tone: 'danger', terminal: true, pace: 'none' },
  cancelled: { label: 'Cancelled', tone: 'neutral', terminal: true, pace: 'none' },
  skipped: { label: 'Skipped', tone: 'neutral', terminal: true, pace: 'none' },
};

export const KNOWN_STATUSES = Object.keys(RULES);

/** A status this console knows the meaning of; any other is shown raw and treated as maybe in flight. */
export function isKnownStatus(status: string): boolean {
  return Object.hasOwn(RULES, status);
}
export const TERMINAL_STATUSES = KNOWN_STATUSES.filter((s) => RULES[s]?.terminal);

/** The poll interval a person starts with (the spec's recommendation); how soon each poll goes out is api/retry-policy.ts's. */
export const DEFAULT_POLL_INTERVAL_MS = 5_000;
/** A `failed` operation whose status changed this recently still counts as in flight (docs/platform-api.md). */
export const RECENT_FAILURE_MS = 15 * 60_000;

/** The fields of an operation these rules read; a bare status is an operation nothing else is known of. */
export interface OperationFacts {
  status: string;
  updated_at?: string | undefined;
  retry_at?: string | undefined;
}

// An unknown status is shown raw and polled: it may well be a new in-flight state.
const UNKNOWN_PACE: Pace = 'live';

function ruleFor(status: string): StatusRule {
  return RULES[status] ?? { label: status, tone: 'neutral', terminal: false, pace: UNKNOWN_PACE };
}

const factsOf = (operation: string | OperationFacts): OperationFacts => (typeof operation === 'string' ? { status: operation } : operation);

export function statusLabel(status: string): string {
  return ruleFor(status).label;
}

export function statusTone(status: string): StatusTone {
  return ruleFor(status).tone;
}

/** Final by its status alone (OK, Error, Cancelled, Skipped); `failed` is not, it may be retried. */
export function isTerminal(status: string): boolean {
  return ruleFor(status).terminal;
}

/** `failed`: an error the platform may still retry (whether it will depends on its times: isAwaitingRetry). */
export function mayBeRetried(status: string): boolean {
  return ruleFor(status).pace === 'retry';
}

/** Milliseconds since the epoch, or NaN. */
function timeOf(iso: string | undefined): number {
  return iso === undefined ? NaN : Date.parse(iso);
}

/**
 * A `failed` operation the platform may still retry: a retry ahead (`retry_at` in the future) or a
 * status change in the last 15 minutes. Without either time to go by, it may be.
 */
export function isAwaitingRetry(operation: OperationFacts, now: number): boolean {
  if (!mayBeRetried(operation.status)) return false;
  const retryAt = timeOf(operation.retry_at);
  const updatedAt = timeOf(operation.updated_at);
  if (Number.isNaN(retryAt) && Number.isNaN(updatedAt)) return true;
  return retryAt > now || now - updatedAt < RECENT_FAILURE_MS;
}

/**
 * In flight: scheduling, running, cancelling, a status the console does not know, or `failed` with a
 * retry still ahead. What makes a project busy and keeps its newest page polled at the live pace.
 */
export function isInFlight(operation: string | OperationFacts, now: number): boolean {
  const facts = factsOf(operation);
  const { pace } = ruleFor(facts.status);
  return pace === 'live' || (pace === 'retry' && isAwaitingRetry(facts, now));
}

/** SQL: the row's status has this pace, by RULES for the statuses it knows and by UNKNOWN_PACE for any other. */
function paceSql(pace: Pace, params: SqlParams): string {
  const known = `status = ANY(${params.add(KNOWN_STATUSES.filter((status) => RULES[status]?.pace === pace))}::text[])`;
  return pace === UNKNOWN_PACE ? `(${known} OR NOT (status = ANY(${params.add(KNOWN_STATUSES)}::text[])))` : known;
}

/**
 * isInFlight as a SQL boolean over one row of `operations` (status text; updated_at and retry_at
 * timestamptz, null when not known), built from the same rules, its values as parameters: what the
 * archive's Activity and the notifications count as in flight is what a page counts.
 */
export function inFlightSql(now: number, params: SqlParams): string {
  // Date.parse reads a time to the millisecond: "t > now" as isAwaitingRetry reads it is "t >= now + 1 ms".
  const next = Math.floor(now) + 1;
  const retryAhead = `retry_at >= ${params.add(new Date(next).toISOString())}::timestamptz`;
  const changedRecently = `updated_at >= ${params.add(new Date(next - RECENT_FAILURE_MS).toISOString())}::timestamptz`;
  const awaitingRetry = `(${retryAhead} OR ${changedRecently} OR (retry_at IS NULL AND updated_at IS NULL)) IS TRUE`;
  return `(${paceSql('live', params)} OR (${paceSql('retry', params)} AND ${awaitingRetry}))`;
}

/** Where an operation stands, in the words the watch list counts in. */
export type Outcome = 'in-progress' | 'awaiting-retry' | 'succeeded' | 'failed' | 'ended';

export function outcomeOf(operation: OperationFacts, now: number): Outcome {
  const { pace, tone } = ruleFor(operation.status);
  if (pace === 'live') return 'in-progress';
  if (pace === 'retry' && isAwaitingRetry(operation, now)) return 'awaiting-retry';
  if (tone === 'danger') return 'failed';
  return tone === 'success' ? 'succeeded' : 'ended';
}

// The platform's periodic availability check never holds the project's lock; every other operation in flight may.
const NON_BLOCKING_ACTIONS = new Set(['check_availability']);

/** Whether this operation may make the platform refuse new changes to its project (423) until it ends. */
export function blocksChanges(operation: OperationFacts & { action: string }, now: number): boolean {
  return isInFlight(operation, now) && !NON_BLOCKING_ACTIONS.has(operation.action);
}

/** An operation as far as comparing two copies of it goes. */
export interface OperationCopy extends OperationFacts {
  updated_at: string;
  total_duration_ms: number;
  failures_count: number;
  error?: string | undefined;
}

function sameCopy(a: OperationCopy, b: OperationCopy): boolean {
  return (
    a.status === b.status &&
    a.updated_at === b.updated_at &&
    a.total_duration_ms === b.total_duration_ms &&
    a.failures_count === b.failures_count &&
    a.error === b.error &&
    a.retry_at === b.retry_at
  );
}

/**
 * Of two copies of one operation (fetched at different times, from different places), the one to
 * keep: the later `updated_at` wins; at the same `updated_at` the one arriving replaces the one held,
 * unless the held one is final (a final status is never undone by an older or equal copy). Returns
 * `current` itself when nothing changes, so callers can tell by identity.
 */
export function newerCopy<T extends OperationCopy>(current: T, incoming: T): T {
  const order = compareTimes(incoming.updated_at, current.updated_at);
  if (order < 0) return current;
  if (order === 0 && isTerminal(current.status)) return current;
  return sameCopy(current, incoming) ? current : incoming;
}

/** How long an operation took: final, still counting (in flight), or not reported. */
export type DurationShown = { kind: 'final'; ms: number } | { kind: 'live'; since: string } | { kind: 'unknown' };

/**
 * The one decision behind every duration the console shows (table, detail page, watch list): a
 * final status shows what the platform reports; work in flight counts up from its creation; a
 * failure is no running work (retried or not), so it shows what was reported, if anything.
 */
export function durationOf(operation: { status: string; created_at: string; total_duration_ms: number }): DurationShown {
  if (isTerminal(operation.status)) return { kind: 'final', ms: operation.total_duration_ms };
  if (ruleFor(operation.status).pace === 'live') return { kind: 'live', since: operation.created_at };
  return operation.total_duration_ms > 0 ? { kind: 'final', ms: operation.total_duration_ms } : { kind: 'unknown' };
}

/** The state a compute operation leaves its compute in when it ends well. */
const COMPUTE_TARGETS: Readonly<Record<string, 'active' | 'idle'>> = { start_compute: 'active', suspend_compute: 'idle' };

/** A compute (an endpoint) as far as its state goes. */
export interface ComputeFacts {
  id: string;
  current_state: string;
  pending_state?: string | undefined;
  /** When the platform last changed it: a compute operation that ended after this is not in this copy yet. */
  updated_at?: string | undefined;
}

/** An operation as far as a compute's state goes. */
export interface ComputeOperationFacts extends OperationFacts {
  action: string;
  endpoint_id?: string | undefined;
  created_at: string;
  updated_at: string;
}

/** Where a compute is: settled in a state, or moving to one (what the operation running now does to it). */
export type ComputeState = { kind: 'settled'; state: string } | { kind: 'moving'; to: string };

/**
 * A compute's state from its last copy and its operations together, so it never reads backwards while the two
 * arrive at different moments: an operation in flight says what happens now (the one running, else the one that
 * runs first: a restart's suspend before its start, from the moment the restart is known, not "Starting…" first);
 * a compute operation that ended after the copy was made says where the compute is now (not "Idle" for the moment
 * between a start's end and the compute's next read); only then the copy's own `pending_state` and `current_state`.
 */
export function computeStateOf(endpoint: ComputeFacts, operations: readonly ComputeOperationFacts[], now: number): ComputeState {
  const own = operations.filter((op) => op.endpoint_id === endpoint.id && COMPUTE_TARGETS[op.action] !== undefined);
  const inFlight = own.filter((op) => isInFlight(op, now));
  if (inFlight.length > 0) {
    const running = inFlight.filter((op) => op.status === 'running');
    // Waiting ones run in the order they were made; at the same moment a suspend goes before a start (a restart).
    const first = [...(running.length ? running : inFlight)].sort(
      (a, b) => compareTimes(a.created_at, b.created_at) || Number(a.action === 'start_compute') - Number(b.action === 'start_compute'),
    )[0];
    const to = first && COMPUTE_TARGETS[first.action];
    if (to) return { kind: 'moving', to };
  }
  const ended = own.filter((op) => op.status === 'finished').sort((a, b) => compareTimes(b.updated_at, a.updated_at))[0];
  const target = ended && COMPUTE_TARGETS[ended.action];
  if (target && endpoint.updated_at !== undefined && compareTimes(ended.updated_at, endpoint.updated_at) > 0) return { kind: 'settled', state: target };
  if (endpoint.pending_state) return { kind: 'moving', to: endpoint.pending_state };
  return { kind: 'settled', state: endpoint.current_state };
}
