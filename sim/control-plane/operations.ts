// Operations: how they are recorded, planned and locked against, and the one registry of what happens in
// the world when an operation of a given action starts or finishes. Other modules register their effects
// here (computes: start_compute, suspend_compute; branches: create_branch), so this module knows none of them.
import { locked, notFound } from '../http-errors';
import { pick, randomInt, randomUuid } from '../random';
import { OPERATION_STATUSES, TERMINAL_STATUSES, type WireOperation, type WireOperationsPage } from '../wire';
import { createdMs, finalStep, isInProgress, lowerBound, operationView, planLiveSteps, type OperationRecord } from './operation-lifecycle';
import { operationsPage } from './pagination';
import type { Scheduler } from './scheduler';
import type { Accounts } from './accounts';
import type { AddOperationInput, ListOperationsQuery, Principal } from './types';
import type { ProjectRecord, World } from './world';

export interface ActionEffects {
  /** A live operation of the action was just created (it may still be scheduled behind another). */
  started?: (op: OperationRecord, atMs: number) => void;
  /** It has finished, after any retry of a failed attempt. */
  finished?: (op: OperationRecord, atMs: number) => void;
}

export interface LiveOperationInput {
  action: string;
  createdAtMs: number;
  branchId?: string | undefined;
  endpointId?: string | undefined;
  startAs?: 'scheduling' | 'running' | undefined;
  /** For a scheduled operation: when its predecessor ends; it runs from then on. */
  after?: number | undefined;
  /** How long the work runs; default: the action's usual duration. */
  workMs?: number | undefined;
  fail?: boolean | undefined;
}

/**
 * What starts in `scheduling`: a compute's start, and the platform's periodic availability check, which waits behind
 * the control plane's other work for 6–18 s (the draw of 300–900 ms, times CHECK_QUEUE_FACTOR), long enough for the
 * archive's collector, at its pace, to see an operation queue, so that the demo's Insights has a Queue p50 to show
 * (docs/simulator.md). A person's changes queue for under a second, as they do on the platform.
 */
const QUEUED_ACTIONS = new Set(['start_compute', 'check_availability']);
const CHECK_QUEUE_FACTOR = 20;

/** check_availability runs alongside user changes on the platform; everything else locks the project (423). */
const LOCK_EXEMPT_ACTIONS = new Set(['check_availability']);

const FAILURE_MESSAGES: Record<string, readonly string[]> = {
  start_compute: ['compute did not become ready within 60s', 'failed to schedule compute: no capacity in region'],
  suspend_compute: ['failed to suspend compute: pod termination timed out'],
  create_branch: ['timeline creation failed: pageserver unavailable'],
  check_availability: ['availability check failed: safekeeper quorum not reached'],
};
const GENERIC_FAILURES = ['control plane request timed out', 'storage controller returned 503'];

export type Operations = ReturnType<typeof createOperations>;

export function createOperations(world: World, scheduler: Scheduler, accounts: Accounts, options: { failureRate: number }) {
  const { random, now } = world;
  const effects = new Map<string, ActionEffects[]>();

  function effectsOf(action: string): ActionEffects[] {
    return effects.get(action) ?? [];
  }

  /** Stores the operation in its project's sorted list, nudging its time by microseconds if taken. */
  function insert(project: ProjectRecord, op: OperationRecord): void {
    const ops = project.operations;
    const last = ops[ops.length - 1];
    // Work started now is newer than everything before it: the sub-millisecond jitter must not reorder
    // operations started one after another within the same millisecond.
    if (last && createdMs(op) >= now() && op.createdUs <= last.createdUs) {
      op.createdUs = last.createdUs + 1;
    }
    if (!last || last.createdUs < op.createdUs) {
      ops.push(op);
    } else {
      let index = lowerBound(ops, op.createdUs);
      while (ops[index]?.createdUs === op.createdUs) {
        op.createdUs += 1;
        index += 1;
      }
      ops.splice(index, 0, op);
    }
    world.operations.set(op.id, op);
    if (!LOCK_EXEMPT_ACTIONS.has(op.action) && isInProgress(op, now())) project.inFlight.add(op);
  }

  function newRecord(
    project: ProjectRecord,
    fields: { action: string; createdAtMs: number; branchId?: string | undefined; endpointId?: string | undefined },
  ): OperationRecord {
    let id = randomUuid(random);
    while (world.operations.has(id)) id = randomUuid(random);
    const op: OperationRecord = {
      id,
      projectId: project.id,
      action: fields.action,
      // Sub-millisecond jitter: real operations created in the same millisecond still differ in microseconds.
      createdUs: fields.createdAtMs * 1000 + randomInt(random, 0, 999),
      steps: [],
    };
    if (fields.branchId !== undefined) op.branchId = fields.branchId;
    if (fields.endpointId !== undefined) op.endpointId = fields.endpointId;
    return op;
  }

  function failureFor(action: string, fail: boolean | undefined): { error: string; retryDelayMs: number } | undefined {
    const roll = random();
    const failing = fail ?? roll < options.failureRate;
    if (!failing) return undefined;
    return { error: pick(random, FAILURE_MESSAGES[action] ?? GENERIC_FAILURES), retryDelayMs: randomInt(random, 5_000, 15_000) };
  }

  /** How long an action's work usually runs on the platform. */
  function workMs(action: string): number {
    switch (action) {
      case 'create_branch':
      case 'suspend_compute':
      case 'create_timeline':
        return randomInt(random, 2_000, 4_000);
      case 'start_compute':
        return randomInt(random, 3_000, 6_000);
      case 'check_availability':
        return randomInt(random, 1_500, 4_000);
      default:
        return randomInt(random, 1_000, 3_000);
    }
  }

  /** Creates an operation that moves through its lifecycle as the clock advances, with its effects. */
  function start(project: ProjectRecord, input: LiveOperationInput): OperationRecord {
    // Drawn first: the order of draws from the seeded randomness is what makes a seed give the same world.
    const work = input.workMs ?? workMs(input.action);
    const op = newRecord(project, input);
    const startAs = input.startAs ?? (QUEUED_ACTIONS.has(input.action) ? 'scheduling' : 'running');
    const failure = failureFor(input.action, input.fail);
    // One draw whatever the action (a seed gives the same world); an availability check waits its turn for longer.
    const queued = randomInt(random, 300, 900) * (input.action === 'check_availability' ? CHECK_QUEUE_FACTOR : 1);
    op.steps = planLiveSteps({
      createdMs: createdMs(op),
      startAs,
      runAtMs: input.after ?? createdMs(op) + queued,
      workMs: work,
      ...(failure ? { failure } : {}),
    });
    insert(project, op);
    for (const effect of effectsOf(op.action)) effect.started?.(op, input.createdAtMs);
    scheduler.schedule(finalStep(op).atMs, (atMs) => {
      for (const effect of effectsOf(op.action)) effect.finished?.(op, atMs);
    });
    return op;
  }

  /** A history entry: frozen at `status` forever, with its reported duration. */
  function addFrozen(project: ProjectRecord, input: AddOperationInput & { status: NonNullable<AddOperationInput['status']> }): OperationRecord {
    const { status } = input;
    if (!OPERATION_STATUSES.includes(status)) throw new Error(`unknown operation status ${status}`);
    const op = newRecord(project, { ...input, createdAtMs: world.toMs(input.createdAt) });
    const terminal = TERMINAL_STATUSES.has(status);
    const durationMs = terminal ? (input.durationMs ?? randomInt(random, 800, 4_000)) : 0;
    const atMs = createdMs(op) + durationMs;
    const failed = status === 'failed' || status === 'error';
    op.steps = [
      {
        atMs,
        status,
        failuresCount: failed ? 1 : 0,
        ...(failed ? { error: input.error ?? pick(random, FAILURE_MESSAGES[input.action] ?? GENERIC_FAILURES) } : {}),
        ...(status === 'failed' ? { retryAtMs: atMs + 60_000 } : {}),
      },
    ];
    op.frozen = { totalDurationMs: durationMs };
    insert(project, op);
    return op;
  }

  function view(op: OperationRecord): WireOperation {
    return operationView(op, now());
  }

  function inProgressBlocking(project: ProjectRecord): OperationRecord | undefined {
    const t = now();
    for (const op of project.inFlight) {
      if (isInProgress(op, t)) return op;
      project.inFlight.delete(op);
    }
    return undefined;
  }

  return {
    /**
     * A world restored from a snapshot (snapshot.ts): its projects' sorted lists and what still locks them, and the
     * effects of every operation that had not ended when the snapshot was taken (applied at once if it has since).
     */
    resume: (savedAtMs: number): void => {
      const t = now();
      for (const project of world.projects.values()) {
        project.operations = [];
        project.inFlight = new Set();
      }
      const byTime = [...world.operations.values()].sort((a, b) => a.createdUs - b.createdUs);
      for (const op of byTime) {
        const project = world.projects.get(op.projectId);
        if (!project) continue;
        project.operations.push(op);
        if (!LOCK_EXEMPT_ACTIONS.has(op.action) && isInProgress(op, t)) project.inFlight.add(op);
        if (!op.frozen && finalStep(op).atMs > savedAtMs) {
          scheduler.schedule(finalStep(op).atMs, (atMs) => {
            for (const effect of effectsOf(op.action)) effect.finished?.(op, atMs);
          });
        }
      }
    },

    /** Registers what an action does to the world; several modules may register for one action. */
    onAction: (action: string, effect: ActionEffects): void => {
      effects.set(action, [...effectsOf(action), effect]);
    },
    start,
    workMs,
    view,

    /** Builder for tests and the seed: a live operation (no `status`) or a frozen history entry. */
    add: (input: AddOperationInput): WireOperation => {
      const project = world.projectOrThrow(input.projectId);
      if (input.status !== undefined) return view(addFrozen(project, { ...input, status: input.status }));
      // Live operations act on real objects; history may name branches and computes deleted since.
      if (input.branchId !== undefined) world.branchOrThrow(project.id, input.branchId);
      if (input.endpointId !== undefined) world.endpointOrThrow(input.endpointId);
      const op = start(project, {
        action: input.action,
        createdAtMs: world.toMs(input.createdAt),
        branchId: input.branchId,
        endpointId: input.endpointId,
        startAs: input.startAs,
        workMs: input.durationMs,
        fail: input.fail,
      });
      return view(op);
    },

    /** Mutations wait for the project's user-visible work to finish (the platform answers 423, safe to retry). */
    assertUnlocked: (project: ProjectRecord): void => {
      if (project.locked) throw locked(`project ${project.id} is locked`);
      const running = inProgressBlocking(project);
      if (running) {
        throw locked(`project already has running operations, scheduling of new ones is prohibited (operation ${running.id}, ${running.action})`);
      }
    },

    list: (principal: Principal, projectId: string, query: ListOperationsQuery = {}): WireOperationsPage => {
      return operationsPage(accounts.visibleProject(principal, projectId).operations, query, view);
    },

    get: (principal: Principal, projectId: string, operationId: string): { operation: WireOperation } => {
      const project = accounts.visibleProject(principal, projectId);
      const op = world.operations.get(operationId);
      if (op?.projectId !== project.id) throw notFound(`operation ${operationId} not found`);
      return { operation: view(op) };
    },

    /** Any operation by id, no scope checks (for tests and the seed). */
    find: (operationId: string): WireOperation | undefined => {
      const op = world.operations.get(operationId);
      return op ? view(op) : undefined;
    },

    /** Every operation of the project, newest first. */
    allOf: (project: ProjectRecord): WireOperation[] => {
      return project.operations.map(view).reverse();
    },

    /**
     * The platform pruning an operation (it keeps about 6 months of them): from now on the API neither lists nor
     * finds it. For tests of what outlives the API (the console's history archive).
     */
    prune: (operationId: string): void => {
      const op = world.operations.get(operationId);
      if (!op) throw new Error(`unknown operation ${operationId}`);
      const project = world.projectOrThrow(op.projectId);
      project.operations.splice(project.operations.indexOf(op), 1);
      project.inFlight.delete(op);
      world.operations.delete(operationId);
    },
  };
}
