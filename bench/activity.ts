// The activity view's scheduler over simulated minutes: src/lib/activity-scheduler.ts driven by a
// simulated clock, with a model of the view's requests (a project list read in pages, each project's
// newest page). Nothing is fetched: the figures are the scheduler's own (what it sends, and when a new
// operation in an idle project is first read), which is what the budget and the detection target are about.
import {
  BUDGET_WINDOW_MS,
  DEFAULT_BUDGET_PER_MINUTE,
  kindOf,
  LIST_REFRESH_MS,
  planNext,
  recordSent,
  roundMs,
  type SentRequest,
  type SlowDown,
} from '../src/lib/activity-scheduler';
import { DEFAULT_POLL_INTERVAL_MS } from '../src/model/operation-status';

export interface ActivitySimulation {
  projects: number;
  /** The first `busy` projects have work in flight the whole time. */
  busy: number;
  budgetPerMinute?: number;
  intervalMs?: number;
  minutes: number;
  /** Project list pages per refresh (the organizations, then one page per owner). */
  listPages?: number;
  /** 429s answered at these moments (ms from the start), with this Retry-After. */
  rateLimitedAt?: readonly number[];
  retryAfterMs?: number;
}

export interface SimulatedRequest {
  at: number;
  kind: 'list' | 'busy' | 'idle';
  projectId?: string;
}

/** Every request the scheduler sends over the simulated minutes, in order. */
export function simulateActivity(sim: ActivitySimulation): SimulatedRequest[] {
  const budgetPerMinute = sim.budgetPerMinute ?? DEFAULT_BUDGET_PER_MINUTE;
  const intervalMs = sim.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const listPages = sim.listPages ?? 2;
  const ids = Array.from({ length: sim.projects }, (_, i) => `p${i}`);
  const checkedAt = new Map<string, number>();
  const limited = [...(sim.rateLimitedAt ?? [])];
  let sent: SentRequest[] = [];
  let listedAt: number | null = null;
  let listPage = -1;
  let slowDown: SlowDown | null = null;
  const log: SimulatedRequest[] = [];
  let now = 0;
  const end = sim.minutes * 60_000;
  while (now < end) {
    const plan = planNext({
      now,
      budgetPerMinute,
      intervalMs,
      projects: listedAt === null ? [] : ids.map((id, i) => ({ id, checkedAt: checkedAt.get(id) ?? null, busy: i < sim.busy })),
      listedAt,
      listing: listPage >= 0,
      sent,
      slowDown,
    });
    now = Math.max(now, plan.at);
    if (now >= end) break;
    const kind = kindOf(plan.step);
    sent = recordSent(sent, { at: now, kind });
    log.push({ at: now, kind, ...(plan.step.kind === 'project' ? { projectId: plan.step.projectId } : {}) });
    if (limited[0] !== undefined && now >= limited[0]) {
      limited.shift();
      const retryAfterMs = sim.retryAfterMs ?? 1_000;
      slowDown = { since: now, until: now + Math.max(2 * 60_000, retryAfterMs), notBefore: now + retryAfterMs };
      continue;
    }
    if (plan.step.kind === 'list') {
      listPage += 1;
      if (listPage >= listPages) {
        listPage = -1;
        listedAt = now;
      }
    } else {
      checkedAt.set(plan.step.projectId, now);
    }
  }
  return log;
}

/** The most requests in any 60 s window (each window ending at a request). */
export function mostInAMinute(log: readonly SimulatedRequest[]): number {
  let most = 0;
  let start = 0;
  for (let i = 0; i < log.length; i++) {
    const at = log[i]?.at ?? 0;
    while ((log[start]?.at ?? Infinity) <= at - BUDGET_WINDOW_MS) start++;
    most = Math.max(most, i - start + 1);
  }
  return most;
}

/**
 * How long a new operation in an idle project waits to be read, over every moment it could appear:
 * for each idle project, the gaps between its consecutive checks after the warm-up (an operation
 * created just after a check waits the whole gap).
 */
export function detectionTimes(log: readonly SimulatedRequest[], warmUpMs = LIST_REFRESH_MS): number[] {
  const last = new Map<string, number>();
  const gaps: number[] = [];
  for (const r of log) {
    if (r.kind !== 'idle' || !r.projectId) continue;
    const before = last.get(r.projectId);
    if (before !== undefined && before >= warmUpMs) gaps.push(r.at - before);
    last.set(r.projectId, r.at);
  }
  return gaps;
}

export interface ActivityBenchRow {
  projects: number;
  busy: number;
  budgetPerMinute: number;
  requestsPerMinute: number;
  mostInAMinute: number;
  roundMs: number;
  detectionMedianMs: number;
  detectionMaxMs: number;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

export function measureActivity(minutes = 30): ActivityBenchRow[] {
  const rows: ActivityBenchRow[] = [];
  for (const projects of [10, 50, 200]) {
    for (const busy of [0, Math.max(1, Math.round(projects / 10))]) {
      const sim = { projects, busy, minutes };
      const log = simulateActivity(sim);
      const detections = detectionTimes(log);
      const budgetPerMinute = DEFAULT_BUDGET_PER_MINUTE;
      rows.push({
        projects,
        busy,
        budgetPerMinute,
        requestsPerMinute: log.length / minutes,
        mostInAMinute: mostInAMinute(log),
        roundMs: roundMs({ budgetPerMinute, intervalMs: DEFAULT_POLL_INTERVAL_MS, projects, busy }),
        detectionMedianMs: median(detections),
        detectionMaxMs: Math.max(...detections),
      });
    }
  }
  return rows;
}

/** The targets of one row: never over the budget in any 60 s, and a new operation read within two rounds. */
export function activityRowMet(row: ActivityBenchRow): boolean {
  return row.mostInAMinute <= row.budgetPerMinute && row.detectionMaxMs <= 2 * row.roundMs;
}

export function reportActivity(rows: readonly ActivityBenchRow[], minutes = 30): void {
  console.log(
    `\nActivity across projects: the scheduler over ${minutes} simulated minutes (pure scheduler, simulated clock; budget ${DEFAULT_BUDGET_PER_MINUTE}/min, poll interval ${DEFAULT_POLL_INTERVAL_MS / 1000} s):\n`,
  );
  const header = ['projects', 'busy', 'req/min', 'most in 60 s', 'round', 'new op in an idle project, worst case: median / max', 'target'];
  console.log(`  ${header.join('  ')}`);
  for (const r of rows) {
    const ok = activityRowMet(r);
    const cells = [
      String(r.projects).padStart(header[0]?.length ?? 0),
      String(r.busy).padStart(header[1]?.length ?? 0),
      r.requestsPerMinute.toFixed(1).padStart(header[2]?.length ?? 0),
      String(r.mostInAMinute).padStart(header[3]?.length ?? 0),
      `${(r.roundMs / 1000).toFixed(0)} s`.padStart(header[4]?.length ?? 0),
      `${(r.detectionMedianMs / 1000).toFixed(1)} s / ${(r.detectionMaxMs / 1000).toFixed(1)} s`.padStart(header[5]?.length ?? 0),
      ok ? 'ok' : 'MISSED',
    ];
    console.log(`  ${cells.join('  ')}`);
  }
  console.log('  (targets: most in 60 s ≤ budget; max detection ≤ 2 rounds. Worst case: the operation appears just after its project was read.)');
}
