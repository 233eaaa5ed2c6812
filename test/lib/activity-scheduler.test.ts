import { describe, expect, it } from 'vitest';
import { detectionTimes, mostInAMinute, simulateActivity } from '../../bench/activity';
import { earliestSend, effectiveBudget, kindOf, planNext, recordSent, roundMs, type SchedulerInput, type SentRequest } from '../../src/lib/activity-scheduler';

// The activity view's scheduler over simulated minutes (bench/activity.ts drives it with a simulated clock).

const MINUTE = 60_000;

function input(overrides: Partial<SchedulerInput>): SchedulerInput {
  return { now: 0, budgetPerMinute: 60, intervalMs: 5_000, projects: [], listedAt: 0, listing: false, sent: [], slowDown: null, ...overrides };
}

describe('activity scheduler', () => {
  it('reads the project list before anything else', () => {
    expect(planNext(input({ listedAt: null, projects: [{ id: 'a', checkedAt: null, busy: false }] })).step).toEqual({ kind: 'list' });
  });

  it('takes turns between the first list’s pages and the projects found so far, the most recently active first', () => {
    const found = [
      { id: 'quiet', checkedAt: null, busy: false, priority: 1_000 },
      { id: 'lively', checkedAt: null, busy: false, priority: 9_000 },
    ];
    const afterList = input({ now: 1_000, listedAt: null, listing: true, projects: found, sent: [{ at: 0, kind: 'list' }] });
    expect(planNext(afterList)).toEqual({ step: { kind: 'project', projectId: 'lively', busy: false }, at: 1_000 });
    const afterProject = input({
      now: 2_000,
      listedAt: null,
      listing: true,
      projects: [{ ...found[1]!, checkedAt: 1_000 }, found[0]!],
      sent: [
        { at: 0, kind: 'list' },
        { at: 1_000, kind: 'idle' },
      ],
    });
    expect(planNext(afterProject).step).toEqual({ kind: 'list' });
  });

  it('opens with six requests one after another (the first list’s pages taking turns with the most recently active projects), then sends evenly', () => {
    const opening = { listedAt: null, listing: true };
    const found = [
      { id: 'quiet', checkedAt: null, busy: false, priority: 1_000 },
      { id: 'lively', checkedAt: null, busy: false, priority: 9_000 },
    ];
    expect(planNext(input({ ...opening, listing: false, now: 0 }))).toEqual({ step: { kind: 'list' }, at: 0 });
    expect(planNext(input({ ...opening, now: 80, sent: [{ at: 0, kind: 'list' }] }))).toEqual({ step: { kind: 'list' }, at: 80 });
    const twoSent = [
      { at: 0, kind: 'list' as const },
      { at: 80, kind: 'list' as const },
    ];
    expect(planNext(input({ ...opening, now: 160, projects: found, sent: twoSent }))).toEqual({
      step: { kind: 'project', projectId: 'lively', busy: false },
      at: 160,
    });
    // The opening is six: the seventh waits its even turn (a second at 60 a minute).
    const fiveSent = [...twoSent, { at: 160, kind: 'idle' as const }, { at: 240, kind: 'list' as const }, { at: 320, kind: 'idle' as const }];
    const found3 = [
      { ...found[1]!, checkedAt: 160 },
      { ...found[0]!, checkedAt: 320 },
      { id: 'third', checkedAt: null, busy: false, priority: 500 },
    ];
    expect(planNext(input({ ...opening, now: 400, projects: found3, sent: fiveSent }))).toEqual({ step: { kind: 'list' }, at: 400 });
    expect(planNext(input({ ...opening, now: 480, projects: found3, sent: [...fiveSent, { at: 400, kind: 'list' }] })).at).toBe(1_400);
    // Once the list is read, and after a 429, requests go evenly from the first.
    expect(planNext(input({ now: 80, projects: found, sent: [{ at: 0, kind: 'list' }] })).at).toBe(1_000);
    expect(planNext(input({ ...opening, now: 80, sent: [{ at: 0, kind: 'list' }], slowDown: { since: 0, until: 120_000, notBefore: 10 } })).at).toBe(2_000);
  });

  it.each([10, 50, 200])('never sends more than the budget in any minute, with %i projects', (projects) => {
    for (const busy of [0, 1, Math.round(projects / 4)]) {
      for (const budgetPerMinute of [30, 60, 300]) {
        const log = simulateActivity({ projects, busy, budgetPerMinute, minutes: 10 });
        expect(mostInAMinute(log)).toBeLessThanOrEqual(budgetPerMinute);
        // And the budget is used when there is more work than it (idle projects want 2 reads a minute, busy ones 12).
        const wanted = (projects - busy) * 2 + busy * 12;
        if (wanted > budgetPerMinute) expect(log.length).toBeGreaterThan(budgetPerMinute * 9);
      }
    }
  });

  it('checks busy projects at the poll interval and idle ones in turn, least recently checked first', () => {
    const log = simulateActivity({ projects: 10, busy: 2, minutes: 5 });
    const checks = (id: string) => log.filter((r) => r.projectId === id).map((r) => r.at);
    for (const busy of ['p0', 'p1']) {
      const at = checks(busy);
      const gaps = at.slice(1).map((t, i) => t - (at[i] ?? 0));
      // Every 5 s, give or take the two slots (1 s each at 60 a minute) the others due at the same moment take.
      expect(Math.max(...gaps)).toBeLessThanOrEqual(7_000);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5_000);
    }
    // Idle projects: each once before any of them twice, in the same order every turn.
    const idle = log.filter((r) => r.kind === 'idle').map((r) => r.projectId);
    const firstTurn = idle.slice(0, 8);
    expect(new Set(firstTurn).size).toBe(8);
    expect(idle.slice(8, 16)).toEqual(firstTurn);
    // Never more often than six intervals (30 s).
    for (let i = 2; i < 10; i++) {
      const at = checks(`p${i}`);
      expect(Math.min(...at.slice(1).map((t, j) => t - (at[j] ?? 0)))).toBeGreaterThanOrEqual(30_000);
    }
  });

  it.each([10, 50, 200])('finds a new operation in an idle project within one round, with %i projects', (projects) => {
    for (const busy of [0, Math.round(projects / 10)]) {
      const log = simulateActivity({ projects, busy, minutes: 20 });
      const round = roundMs({ budgetPerMinute: 60, intervalMs: 5_000, projects, busy });
      // An operation created just after a project's check waits for its next one: within the round, give or take a list refresh.
      expect(Math.max(...detectionTimes(log))).toBeLessThanOrEqual(round * 1.25);
    }
  });

  it('keeps room for idle projects when busy ones alone would take the whole budget', () => {
    const log = simulateActivity({ projects: 50, busy: 20, minutes: 10 });
    const idle = new Set(log.filter((r) => r.kind === 'idle').map((r) => r.projectId));
    expect(idle.size).toBe(30);
    expect(mostInAMinute(log)).toBeLessThanOrEqual(60);
  });

  it('keeps reading idle projects when each request takes longer than the poll interval', () => {
    // A slow network: every answer takes 250 ms, the interval is 100 ms, the budget far from spent.
    const projects = ['busy-1', 'busy-2', 'idle-1', 'idle-2', 'idle-3'];
    const checkedAt = new Map<string, number>();
    let sent: SentRequest[] = [];
    let now = 0;
    const reads: string[] = [];
    while (now < 10_000) {
      const plan = planNext(
        input({
          now,
          budgetPerMinute: 3_000,
          intervalMs: 100,
          projects: projects.map((id) => ({ id, checkedAt: checkedAt.get(id) ?? null, busy: id.startsWith('busy') })),
          sent,
        }),
      );
      now = plan.at;
      sent = recordSent(sent, { at: now, kind: kindOf(plan.step) });
      if (plan.step.kind === 'project') {
        reads.push(plan.step.projectId);
        checkedAt.set(plan.step.projectId, now);
      }
      now += 250;
    }
    // Every idle project is read in every few seconds, however often the busy ones are due.
    for (const idle of ['idle-1', 'idle-2', 'idle-3']) expect(reads.filter((id) => id === idle).length).toBeGreaterThanOrEqual(5);
    expect(reads.filter((id) => id.startsWith('busy')).length).toBeGreaterThanOrEqual(reads.length / 2 - 1);
  });

  it('halves the pace after a 429 and waits out its Retry-After', () => {
    const log = simulateActivity({ projects: 50, busy: 0, minutes: 8, rateLimitedAt: [3 * MINUTE], retryAfterMs: 10_000 });
    const limitedAt = log.find((r) => r.at >= 3 * MINUTE)?.at ?? 0;
    const after = log.filter((r) => r.at > limitedAt);
    expect((after[0]?.at ?? 0) - limitedAt).toBeGreaterThanOrEqual(10_000);
    const minuteAfter = after.filter((r) => r.at <= limitedAt + 70_000);
    expect(minuteAfter.length).toBeLessThanOrEqual(30);
    // Back to the full budget once the slow-down is over.
    const later = log.filter((r) => r.at > limitedAt + 3 * MINUTE && r.at <= limitedAt + 4 * MINUTE);
    expect(later.length).toBeGreaterThan(50);
  });

  it('spaces requests by a minute over the budget and honours the window', () => {
    const sent = Array.from({ length: 60 }, (_, i) => ({ at: i * 100, kind: 'idle' as const }));
    // 60 sent within 6 s: the next waits until the first has left the minute.
    expect(earliestSend({ now: 6_000, budgetPerMinute: 60, sent, slowDown: null })).toBe(60_000);
    expect(earliestSend({ now: 0, budgetPerMinute: 120, sent: [{ at: 0, kind: 'list' }], slowDown: null })).toBe(500);
    expect(effectiveBudget(60, { since: 0, until: 10, notBefore: 5 }, 5)).toBe(30);
    expect(effectiveBudget(60, { since: 0, until: 10, notBefore: 5 }, 10)).toBe(60);
  });
});
