// Which project the activity view reads next, and when, inside a budget of requests a minute. Pure:
// the caller hands in the clock's reading and everything it knows; nothing here waits or fetches.
//
// The rule: every request the view makes (project list pages too) counts against the budget, sent
// evenly (at least 60 s / budget apart, but for the first OPENING_BURST of a view that has just opened) and
// never more than the budget in any 60 s. A project with work
// in flight is read again once the poll interval has passed; the others in turn, least recently checked
// first, never more often than IDLE_FACTOR × the interval. Busy projects get at most BUSY_SHARE of the
// budget (and of the requests sent, when they take longer than the interval) while idle ones are due, so a
// storm in a few projects never hides a new operation elsewhere.
// Projects never read yet go by their `priority` (recent activity), so the first round finds work early,
// and take turns with the first list's pages (the projects found so far are `projects` then). The
// project list is read again every LIST_REFRESH_MS. A 429 halves the budget for SLOW_DOWN_MS (or for
// its Retry-After, when longer), and nothing goes out before its Retry-After has passed.

export const DEFAULT_BUDGET_PER_MINUTE = 60;
export const BUDGET_CHOICES = [30, 60, 120, 300, 600] as const;
/** An idle project is checked at most once every this many poll intervals (5 s → 30 s). */
export const IDLE_FACTOR = 6;
/** The share of the budget busy projects may take while an idle one (or the project list) is due. */
export const BUSY_SHARE = 0.5;
export const LIST_REFRESH_MS = 3 * 60_000;
export const SLOW_DOWN_MS = 2 * 60_000;
export const BUDGET_WINDOW_MS = 60_000;
/**
 * A view that has just opened (its first list not read yet) sends this many requests one after another, without
 * the even gap: the organizations, the first projects pages and the most recently active projects found on them,
 * taking turns, are what its first rows need (the most recently active project may have nothing to show). Six in a
 * row are far inside the platform's limits (40 a second per route) and a tenth of the default budget.
 */
export const OPENING_BURST = 6;

export type RequestKind = 'list' | 'busy' | 'idle';

export interface SentRequest {
  at: number;
  kind: RequestKind;
}

export interface ScheduledProject {
  id: string;
  /** When its newest page was last read; null: never. */
  checkedAt: number | null;
  /** Work in flight among its newest operations (docs/platform-api.md). */
  busy: boolean;
  /** Among projects never read yet, higher is read first (e.g. when its compute was last active); 0 by default. */
  priority?: number;
}

/** After a 429: the budget is halved from `since` to `until`, and nothing is sent before `notBefore`. */
export interface SlowDown {
  since: number;
  until: number;
  notBefore: number;
}

export interface SchedulerInput {
  now: number;
  budgetPerMinute: number;
  intervalMs: number;
  projects: readonly ScheduledProject[];
  /** When the project list was last read to its end; null: never. */
  listedAt: number | null;
  /** A list refresh is part-way (its next page is due at once). */
  listing: boolean;
  /** The view's requests, oldest first (those older than a minute may be left out). */
  sent: readonly SentRequest[];
  slowDown: SlowDown | null;
}

export type Step = { kind: 'list' } | { kind: 'project'; projectId: string; busy: boolean };

export interface Plan {
  step: Step;
  /** When it may go out (not before the input's `now` when it is due already). */
  at: number;
}

export function isSlowedDown(slowDown: SlowDown | null, now: number): slowDown is SlowDown {
  return slowDown !== null && now < slowDown.until;
}

/** The budget in force: the chosen one, halved while slowed down by a 429 (at least one a minute). */
export function effectiveBudget(budgetPerMinute: number, slowDown: SlowDown | null, now: number): number {
  const budget = Math.max(1, Math.floor(budgetPerMinute));
  return isSlowedDown(slowDown, now) ? Math.max(1, Math.floor(budget / 2)) : budget;
}

/** The requests sent in the minute up to `now`. */
export function sentInLastMinute(sent: readonly SentRequest[], now: number): SentRequest[] {
  return sent.filter((r) => r.at > now - BUDGET_WINDOW_MS && r.at <= now);
}

/**
 * The earliest moment the next request may go out: evenly paced (but for a view's opening burst, `opening`),
 * inside the window, after any Retry-After.
 */
export function earliestSend(input: Pick<SchedulerInput, 'now' | 'budgetPerMinute' | 'sent' | 'slowDown'> & { opening?: boolean }): number {
  const budget = effectiveBudget(input.budgetPerMinute, input.slowDown, input.now);
  const gap = Math.ceil(BUDGET_WINDOW_MS / budget);
  let at = input.now;
  const last = input.sent.at(-1);
  const burst = input.opening === true && input.slowDown === null && input.sent.length < Math.min(OPENING_BURST, budget);
  if (last && !burst) at = Math.max(at, last.at + gap);
  // The budget-th most recent request must have left the window (the window is the 60 s up to and including a send).
  const bound = input.sent.at(-budget);
  if (bound && input.sent.length >= budget) at = Math.max(at, bound.at + BUDGET_WINDOW_MS);
  if (input.slowDown) at = Math.max(at, input.slowDown.notBefore);
  return at;
}

export const idleIntervalMs = (intervalMs: number) => intervalMs * IDLE_FACTOR;

interface Candidate {
  step: Step;
  due: number;
  /** Lower goes first among candidates due at once. */
  rank: number;
  checkedAt: number;
  /** Higher goes first among those never checked. */
  priority: number;
}

function candidatesOf(input: SchedulerInput): Candidate[] {
  const list: Candidate[] = [];
  const firstList = input.listedAt === null;
  const listDue = input.listing || input.listedAt === null ? -Infinity : input.listedAt + LIST_REFRESH_MS;
  // While the first list is read, its pages and the projects it has found so far take turns: the first rows need not wait for the last page.
  const projectsTurn = firstList && input.sent.at(-1)?.kind === 'list' && input.projects.some((p) => p.checkedAt === null);
  const listRank = projectsTurn ? 4 : firstList || input.listing ? 0 : 2;
  list.push({ step: { kind: 'list' }, due: listDue, rank: listRank, checkedAt: input.listedAt ?? -Infinity, priority: 0 });
  // Before the list has found a project there is nothing else to read.
  for (const p of input.projects) {
    const checkedAt = p.checkedAt ?? -Infinity;
    const wait = p.busy ? input.intervalMs : idleIntervalMs(input.intervalMs);
    list.push({ step: { kind: 'project', projectId: p.id, busy: p.busy }, due: checkedAt + wait, rank: p.busy ? 1 : 3, checkedAt, priority: p.priority ?? 0 });
  }
  return list;
}

// Never checked (-Infinity each): by priority, the most recently active first.
const byTurn = (a: Candidate, b: Candidate) => a.rank - b.rank || (a.checkedAt === b.checkedAt ? b.priority - a.priority : a.checkedAt - b.checkedAt);

/** The next request to send and when: see the rule at the top of this file. */
export function planNext(input: SchedulerInput): Plan {
  const at = earliestSend({ ...input, opening: input.listedAt === null });
  const candidates = candidatesOf(input);
  const due = candidates.filter((c) => c.due <= at).sort(byTurn);
  if (due.length > 0) {
    const budget = effectiveBudget(input.budgetPerMinute, input.slowDown, at);
    const recent = sentInLastMinute(input.sent, at);
    const busySent = recent.filter((r) => r.kind === 'busy').length;
    const others = due.filter((c) => c.step.kind === 'list' || !c.step.busy);
    // Requests slower than the interval (a slow network, a busy machine) leave busy projects always due: then the share is of what was sent.
    const behind = due.some((c) => c.step.kind === 'project' && c.step.busy && c.due <= at - input.intervalMs) && busySent >= recent.length * BUSY_SHARE;
    const busyCapped = (busySent >= Math.floor(budget * BUSY_SHARE) || behind) && others.length > 0;
    const chosen = (busyCapped ? others[0] : due[0]) ?? due[0];
    if (chosen) return { step: chosen.step, at };
  }
  // Nothing due yet: the first to become due, when it does.
  const next = [...candidates].sort((a, b) => a.due - b.due || byTurn(a, b))[0];
  if (!next) return { step: { kind: 'list' }, at };
  return { step: next.step, at: Math.max(at, next.due) };
}

/** What a request of `step` counts as. */
export function kindOf(step: Step): RequestKind {
  return step.kind === 'list' ? 'list' : step.busy ? 'busy' : 'idle';
}

/** The sent log with one more request, keeping only what the window still needs. */
export function recordSent(sent: readonly SentRequest[], request: SentRequest): SentRequest[] {
  return [...sent.filter((r) => r.at > request.at - BUDGET_WINDOW_MS), request];
}

/**
 * How long one turn through the idle projects takes at this budget: what busy projects leave of it
 * spread over the idle ones, but never quicker than their own interval. A new operation in an idle
 * project shows within one round (plus the page's own request).
 */
export function roundMs(input: { budgetPerMinute: number; intervalMs: number; projects: number; busy: number }): number {
  const busyPerMinute = Math.min(input.busy * (BUDGET_WINDOW_MS / input.intervalMs), input.budgetPerMinute * BUSY_SHARE);
  const idle = Math.max(0, input.projects - input.busy);
  const left = Math.max(1, input.budgetPerMinute - busyPerMinute);
  return Math.max(idleIntervalMs(input.intervalMs), Math.ceil((idle * BUDGET_WINDOW_MS) / left));
}
