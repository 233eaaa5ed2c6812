// Demo data: a person in two organizations, a handful of projects, one with months of history, and
// live work in progress around "now". Deterministic for a given clock start (its own seeded randomness).
import type { ControlPlane } from './control-plane';
import { pick, randomInt, readableId, seededRandom, type Random } from './random';
import type { OperationStatus } from './wire';

export interface EmptySeed {
  apiKey: string;
  userId: string;
}

export interface DemoSeed extends EmptySeed {
  orgIds: { acme: string; northwind: string };
  projectIds: {
    /** acme-analytics-prod: 2,000+ operations over ~5 months, an active compute, a running apply_config. */
    big: string;
    /** scratchpad: personal, no compute, no operations at all. */
    empty: string;
    /** blog-backend: personal, a little history. */
    personal: string;
    /** acme-analytics-staging: a failed suspend_compute that the platform retries a few seconds after start. */
    staging: string;
    /** northwind-storefront: a start_compute in progress (the user is a plain member of Northwind). */
    storefront: string;
    /** northwind-etl: `locked`, so every change is refused with 423. */
    locked: string;
    /** acme-event-archive: exactly as many past operations as `hugeProject` says, nothing running; only with it. */
    huge?: string;
  };
  endpointIds: { bigMain: string };
}

/** The scale project's history by default (SIM_HUGE_PROJECT=1, the bench): 200 pages of the console's 100 rows. */
export const HUGE_PROJECT_OPERATIONS = 20_000;

export interface DemoSeedOptions {
  apiKey?: string;
  /**
   * Adds acme-event-archive with this many operations (HUGE_PROJECT_OPERATIONS for the bench, fewer in the browser
   * tests' world), none without it. Opt-in (`SIM_HUGE_PROJECT`): it costs the simulator's start-up a few hundred milliseconds.
   */
  hugeProject?: number;
}

/** Demo User's address: the person the demo key belongs to. */
export const DEMO_USER_EMAIL = 'demo@example.com';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

interface HistoryEntry {
  action: string;
  atMs: number;
  branchId: string;
  endpointId?: string;
  status: OperationStatus;
  durationMs: number;
}

/** Seeds the demo world and returns the demo user's personal API key (`apiKey` if given, else random). */
export function seedDemo(cp: ControlPlane, options: DemoSeedOptions = {}): DemoSeed {
  const now = cp.clock.now();
  const random = seededRandom(20_261_122);

  const demo = cp.addUser({ name: 'Demo User', email: DEMO_USER_EMAIL });
  const priya = cp.addUser({ name: 'Priya Raman', email: 'priya@acme-analytics.example' });
  const jonas = cp.addUser({ name: 'Jonas Berg', email: 'jonas@northwind.example' });
  const amara = cp.addUser({ name: 'Amara Okafor', email: 'amara@northwind.example' });

  const acme = cp.addOrganization('Acme Analytics', { admins: [demo.id, priya.id], members: [jonas.id], plan: 'scale' });
  const northwind = cp.addOrganization('Northwind Labs', { admins: [amara.id], members: [demo.id, jonas.id], plan: 'launch' });

  const key = cp.issueApiKey({ kind: 'personal', userId: demo.id }, 'demo-console', options.apiKey);

  // Personal projects.
  const personal = cp.addProject({
    name: 'blog-backend',
    ownerId: demo.id,
    createdAt: now - 64 * DAY_MS,
    compute: 'idle',
    pgVersion: 16,
    cpuUsedSec: 18_420,
  });
  addHistory(cp, random, personal.id, {
    fromMs: now - 64 * DAY_MS,
    toMs: now - 3 * 60 * MINUTE_MS,
    count: 40,
    branches: [{ id: personal.defaultBranchId, endpointId: personal.endpointId }],
  });
  const empty = cp.addProject({
    name: 'scratchpad',
    ownerId: demo.id,
    createdAt: now - 2 * DAY_MS,
    compute: false,
  });

  // Acme Analytics (the demo user is an admin).
  const big = cp.addProject({
    name: 'acme-analytics-prod',
    orgId: acme.id,
    ownerId: priya.id,
    createdAt: now - 150 * DAY_MS,
    compute: 'active',
    regionId: 'aws-us-east-2',
    cpuUsedSec: 2_764_310,
  });
  const dev = cp.addBranch({ projectId: big.id, name: 'dev', createdAt: now - 120 * DAY_MS, compute: 'idle' });
  const preview = cp.addBranch({ projectId: big.id, name: 'preview/pr-482', parentId: dev.id, createdAt: now - 9 * DAY_MS, compute: 'idle' });
  const reporting = cp.addBranch({ projectId: big.id, name: 'reporting-snapshot', createdAt: now - 40 * DAY_MS });
  addHistory(cp, random, big.id, {
    fromMs: now - 150 * DAY_MS,
    toMs: now - 2 * MINUTE_MS,
    count: 2_300,
    branches: [
      { id: big.defaultBranchId, endpointId: big.endpointId },
      { id: dev.id, endpointId: dev.endpointId },
      { id: preview.id, endpointId: preview.endpointId },
      { id: reporting.id, endpointId: null },
    ],
  });
  const bigMain = requireEndpoint(big.endpointId);
  cp.addOperation({
    projectId: big.id,
    action: 'check_availability',
    branchId: big.defaultBranchId,
    endpointId: bigMain,
    createdAt: now - 1_500,
    startAs: 'running',
    durationMs: 4_000,
    fail: false,
  });
  cp.addOperation({
    projectId: big.id,
    action: 'apply_config',
    branchId: big.defaultBranchId,
    endpointId: bigMain,
    createdAt: now - 2_000,
    startAs: 'running',
    durationMs: 6_000,
    fail: false,
  });

  const staging = cp.addProject({
    name: 'acme-analytics-staging',
    orgId: acme.id,
    ownerId: demo.id,
    createdAt: now - 95 * DAY_MS,
    compute: 'active',
    cpuUsedSec: 402_118,
  });
  addHistory(cp, random, staging.id, {
    fromMs: now - 95 * DAY_MS,
    toMs: now - 20 * MINUTE_MS,
    count: 80,
    branches: [{ id: staging.defaultBranchId, endpointId: staging.endpointId }],
  });
  cp.addOperation({
    projectId: staging.id,
    action: 'suspend_compute',
    branchId: staging.defaultBranchId,
    endpointId: requireEndpoint(staging.endpointId),
    // Failed two seconds before the seed's "now"; the platform retries it within the next 15 seconds.
    createdAt: now - 5_000,
    startAs: 'running',
    durationMs: 3_000,
    fail: true,
  });

  // Northwind Labs (the demo user is a plain member).
  const storefront = cp.addProject({
    name: 'northwind-storefront',
    orgId: northwind.id,
    ownerId: amara.id,
    createdAt: now - 130 * DAY_MS,
    compute: 'idle',
    regionId: 'aws-eu-central-1',
    pgVersion: 16,
    cpuUsedSec: 905_776,
  });
  addHistory(cp, random, storefront.id, {
    fromMs: now - 130 * DAY_MS,
    toMs: now - 45 * MINUTE_MS,
    count: 150,
    branches: [{ id: storefront.defaultBranchId, endpointId: storefront.endpointId }],
  });
  cp.connect(requireEndpoint(storefront.endpointId));

  const etl = cp.addProject({
    name: 'northwind-etl',
    orgId: northwind.id,
    ownerId: jonas.id,
    createdAt: now - 70 * DAY_MS,
    compute: 'idle',
    regionId: 'aws-eu-central-1',
    locked: true,
    cpuUsedSec: 51_002,
  });
  addHistory(cp, random, etl.id, {
    fromMs: now - 70 * DAY_MS,
    toMs: now - 6 * DAY_MS,
    count: 30,
    branches: [{ id: etl.defaultBranchId, endpointId: etl.endpointId }],
  });

  // Last, so every id above is the same with or without it.
  const huge = options.hugeProject ? seedHugeProject(cp, acme.id, demo.id, now, options.hugeProject) : undefined;

  return {
    apiKey: key.secret,
    userId: demo.id,
    orgIds: { acme: acme.id, northwind: northwind.id },
    projectIds: {
      big: big.id,
      empty: empty.id,
      personal: personal.id,
      staging: staging.id,
      storefront: storefront.id,
      locked: etl.id,
      ...(huge === undefined ? {} : { huge }),
    },
    endpointIds: { bigMain },
  };
}

/** A quiet project (its computes idle, nothing running) whose history is exactly `operations` long. */
function seedHugeProject(cp: ControlPlane, orgId: string, ownerId: string, now: number, operations: number): string {
  const project = cp.addProject({
    name: 'acme-event-archive',
    orgId,
    ownerId,
    createdAt: now - 170 * DAY_MS,
    compute: 'idle',
    cpuUsedSec: 6_120_884,
    // Exactly `operations` however long the server has run: no availability checks add to it.
    quiet: true,
  });
  const replica = cp.addBranch({ projectId: project.id, name: 'replay', createdAt: now - 100 * DAY_MS, compute: 'idle' });
  addHistory(cp, seededRandom(20_000), project.id, {
    fromMs: now - 170 * DAY_MS,
    toMs: now - 30 * MINUTE_MS,
    // A little over the target, then the oldest extra ones are dropped: the count is exact.
    count: Math.round(operations * 1.03),
    keepNewest: operations,
    branches: [
      { id: project.defaultBranchId, endpointId: project.endpointId },
      { id: replica.id, endpointId: replica.endpointId },
    ],
  });
  return project.id;
}

/** A world with one user holding a personal key and nothing else. */
export function seedEmpty(cp: ControlPlane, options: { apiKey?: string } = {}): EmptySeed {
  const user = cp.addUser({ name: 'Test User', email: 'test@example.com' });
  const key = cp.issueApiKey({ kind: 'personal', userId: user.id }, 'test', options.apiKey);
  return { apiKey: key.secret, userId: user.id };
}

function requireEndpoint(endpointId: string | null): string {
  if (endpointId === null) throw new Error('seed: expected a compute');
  return endpointId;
}

interface HistoryPlan {
  fromMs: number;
  toMs: number;
  /** Roughly how many operations to create over the period. */
  count: number;
  /** Keeps only this many of the newest operations (for an exact count). */
  keepNewest?: number;
  branches: { id: string; endpointId: string | null }[];
}

/** Writes a project's past: mostly checks and compute sessions, some branches and config, rare failures. */
function addHistory(cp: ControlPlane, random: Random, projectId: string, plan: HistoryPlan): void {
  const entries: HistoryEntry[] = [];
  const [main] = plan.branches;
  if (!main) throw new Error('seed: a project needs a branch');
  entries.push({ action: 'create_timeline', atMs: plan.fromMs, branchId: main.id, status: 'finished', durationMs: 2_400 });
  const withCompute = plan.branches.filter((b): b is { id: string; endpointId: string } => b.endpointId !== null);
  if (withCompute.length === 0) throw new Error('seed: history needs a branch with a compute');
  // Each event below writes ~1.32 operations on average; spread them evenly over the period.
  const meanGapMs = ((plan.toMs - plan.fromMs) * 1.32) / plan.count;
  for (let t = plan.fromMs; ;) {
    t += Math.max(5_000, Math.round(-Math.log(1 - random()) * meanGapMs));
    if (t > plan.toMs) break;
    const roll = random();
    const target = pick(random, withCompute);
    if (roll < 0.5) {
      entries.push(entry(random, 'check_availability', t, target.id, target.endpointId, randomInt(random, 1_200, 5_000)));
    } else if (roll < 0.75) {
      // A compute session: woken by a connection, suspended after the idle timeout.
      entries.push(entry(random, 'start_compute', t, target.id, target.endpointId, randomInt(random, 1_800, 6_500)));
      const suspendAt = t + randomInt(random, 5, 90) * MINUTE_MS;
      if (suspendAt < plan.toMs) {
        entries.push(entry(random, 'suspend_compute', suspendAt, target.id, target.endpointId, randomInt(random, 900, 3_000)));
      }
    } else if (roll < 0.83) {
      // A preview branch with a compute: both operations created within the same second.
      const secondStart = Math.floor(t / 1000) * 1000;
      const branchId = readableId(random, 'br', 6);
      const endpointId = readableId(random, 'ep', 6);
      entries.push(entry(random, 'create_branch', secondStart + randomInt(random, 0, 300), branchId, undefined, randomInt(random, 2_000, 4_000)));
      entries.push(entry(random, 'start_compute', secondStart + randomInt(random, 400, 900), branchId, endpointId, randomInt(random, 5_000, 9_000)));
    } else if (roll < 0.92) {
      entries.push(entry(random, 'apply_config', t, main.id, main.endpointId ?? undefined, randomInt(random, 600, 2_500)));
    } else {
      const action = pick(random, [
        'create_timeline',
        'delete_tenant',
        'apply_storage_config',
        'tenant_attach',
        'tenant_detach',
        'tenant_reattach',
        'timeline_archive',
        'timeline_unarchive',
        'delete_timeline',
      ]);
      entries.push(entry(random, action, t, pick(random, plan.branches).id, undefined, randomInt(random, 500, 12_000)));
    }
  }
  entries.sort((a, b) => a.atMs - b.atMs);
  if (plan.keepNewest !== undefined) {
    if (entries.length < plan.keepNewest) throw new Error(`seed: ${entries.length} operations, fewer than ${plan.keepNewest}`);
    entries.splice(0, entries.length - plan.keepNewest);
  }
  for (const e of entries) {
    cp.addOperation({
      projectId,
      action: e.action,
      branchId: e.branchId,
      ...(e.endpointId === undefined ? {} : { endpointId: e.endpointId }),
      createdAt: e.atMs,
      status: e.status,
      durationMs: e.durationMs,
    });
  }
}

function entry(random: Random, action: string, atMs: number, branchId: string, endpointId: string | undefined, durationMs: number): HistoryEntry {
  const roll = random();
  // Rare outcomes other than success, as seen on the platform.
  const status: OperationStatus = roll < 0.006 ? 'failed' : roll < 0.011 ? 'error' : roll < 0.015 ? 'cancelled' : roll < 0.021 ? 'skipped' : 'finished';
  return { action, atMs, branchId, ...(endpointId === undefined ? {} : { endpointId }), status, durationMs };
}
