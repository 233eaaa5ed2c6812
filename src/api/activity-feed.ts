import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { isSlowedDown, kindOf, planNext, recordSent, LIST_REFRESH_MS, SLOW_DOWN_MS, type SchedulerInput, type Step } from '../lib/activity-scheduler';
import { isInFlight } from '../model/operation-status';
import { isApiError } from './api-error';
import { fetchOperationsPage } from './operations';
import { authQueries } from './auth';
import { fetchProjectsPage, PROJECTS_PAGE_SIZE, projectQueries } from './projects';
import { shareWithSchema, type QueryMeta } from './query-meta';
import { callOf } from './query-transport';
import { request, type Call } from './request';
import { ActivityFeedSchema, type ActivityFeed } from './activity-feed-schema';
import { OrganizationsResponseSchema, type Project } from './schemas';

export type { ActivityFeed, ActivityProject } from './activity-feed-schema';

// The activity view's one store: the projects the key reaches, each project's newest page as last
// read, and the scheduler's memory (what was sent when, any 429 slow-down). Each fetch of the feed
// query is one step the scheduler chose: at most one request, its result folded in. One tab runs the
// steps (poll sharing) and hands each new feed to the others, so this is plain JSON with a schema.

/** Operations read per project: the newest, enough for what is in flight and what ended lately. */
export const ACTIVITY_PAGE_SIZE = 20;
/** The platform's largest projects page: a key's whole list in as few requests as possible. */
export const ACTIVITY_PROJECTS_PAGE_SIZE = 400;
/** The timer aims this much after the planned moment: a fetch earlier than the plan (a mount, a timer a little early) sends nothing. */
const TIMER_MARGIN_MS = 5;

// Tabs hand the feed over (poll sharing); a copy from another tab must pass its schema.
shareWithSchema('activity-feed', ActivityFeedSchema);

export const EMPTY_FEED: ActivityFeed = { projects: [], listedAt: null, listing: null, checks: {}, sent: [], slowDown: null };

export interface ActivitySettings {
  budgetPerMinute: number;
  intervalMs: number;
  /** Projects the history archive answers for (api/archive.ts): the scheduler spends no request on them. */
  covered?: ReadonlySet<string> | undefined;
}

/** The projects known so far: the list's, or while the first list is read, those its pages have found. */
export function knownProjects(feed: ActivityFeed | undefined): ActivityFeed['projects'] {
  if (!feed) return [];
  return feed.listedAt === null ? (feed.listing?.found ?? []) : feed.projects;
}

/** The scheduler's view of a feed at `now`. */
export function schedulerInput(feed: ActivityFeed, settings: ActivitySettings, now: number): SchedulerInput {
  return {
    now,
    budgetPerMinute: settings.budgetPerMinute,
    intervalMs: settings.intervalMs,
    projects: knownProjects(feed)
      .filter((p) => !settings.covered?.has(p.id))
      .map((p) => {
        const check = feed.checks[p.id];
        return { id: p.id, checkedAt: check?.at ?? null, busy: check?.operations.some((op) => isInFlight(op, now)) ?? false, priority: p.activeAt ?? 0 };
      }),
    listedAt: feed.listedAt,
    listing: feed.listing !== null,
    sent: feed.sent,
    slowDown: feed.slowDown,
  };
}

type Listing = NonNullable<ActivityFeed['listing']>;
type Org = { id: string; name: string };

/** When a project last showed activity, from what the list says (0: nothing known). */
function activeAtOf(project: Project): number {
  const times = [project.compute_last_active_at, project.updated_at].map((t) => (t ? Date.parse(t) : 0));
  return Math.max(0, ...times.filter((t) => Number.isFinite(t)));
}

/** `found` with the projects of one more page, each once. */
function addFound(found: Listing['found'], projects: readonly Project[], orgs: readonly Org[]): Listing['found'] {
  const seen = new Set(found.map((p) => p.id));
  const orgName = (orgId: string) => orgs.find((o) => o.id === orgId)?.name ?? orgId;
  const more = projects
    .filter((p) => !seen.has(p.id))
    .map((p) => {
      const activeAt = activeAtOf(p);
      return { id: p.id, name: p.name, ...(p.org_id ? { orgName: orgName(p.org_id) } : {}), ...(activeAt > 0 ? { activeAt } : {}) };
    });
  return [...found, ...more];
}

/** The list read to its end: projects gone from it lose their last page. */
function listed(feed: ActivityFeed, found: Listing['found'], at: number): ActivityFeed {
  const ids = new Set(found.map((p) => p.id));
  const checks = Object.fromEntries(Object.entries(feed.checks).filter(([id]) => ids.has(id)));
  // The list was read to its end: any problem reading it is over.
  return { projects: found, listedAt: at, listing: null, checks, sent: feed.sent, slowDown: feed.slowDown };
}

/**
 * Before a first list is read: what the console already holds (the projects page's organizations and
 * its lists read to their end, within the list's refresh time) is taken as read then, not asked for again.
 * Sends nothing; an owner whose whole list is not in the cache is read as usual, from there on.
 */
export function listFromCache(feed: ActivityFeed, client: QueryClient, now: number): ActivityFeed {
  if (feed.listedAt !== null || (feed.listing !== null && feed.listing.orgs !== null)) return feed;
  const fresh = (at: number | undefined) => at !== undefined && at > 0 && now - at < LIST_REFRESH_MS;
  const orgsState = client.getQueryState(authQueries.organizations().queryKey);
  if (!orgsState?.data || !fresh(orgsState.dataUpdatedAt)) return feed;
  const orgs = orgsState.data.map(({ id, name }) => ({ id, name }));
  let found: Listing['found'] = [];
  let oldest = orgsState.dataUpdatedAt;
  let owner = 0;
  for (; owner <= orgs.length; owner++) {
    const state = client.getQueryState(projectQueries.list(owner === 0 ? undefined : orgs[owner - 1]?.id).queryKey);
    const pages = state?.data?.pages;
    // Only a list read to its end (its last page short) says which projects there are.
    if (!pages || (pages.at(-1)?.projects.length ?? 0) >= PROJECTS_PAGE_SIZE || !fresh(state.dataUpdatedAt)) break;
    found = addFound(
      found,
      pages.flatMap((page) => page.projects),
      orgs,
    );
    oldest = Math.min(oldest, state.dataUpdatedAt);
  }
  if (owner > orgs.length) return listed(feed, found, oldest);
  return { ...feed, listing: { orgs, owner, found } };
}

async function listStep(feed: ActivityFeed, now: number, call: Call): Promise<ActivityFeed> {
  const listing = feed.listing ?? { orgs: null, owner: 0, found: [] };
  if (listing.orgs === null) {
    const { organizations } = await request('/users/me/organizations', OrganizationsResponseSchema, call);
    return { ...feed, listing: { ...listing, orgs: organizations.map(({ id, name }) => ({ id, name })) } };
  }
  // Owner 0: the key's own projects (a personal key's, or an organization key's scope); then each organization's.
  const org = listing.owner === 0 ? undefined : listing.orgs[listing.owner - 1];
  let page;
  try {
    page = await fetchProjectsPage({ orgId: org?.id, cursor: listing.cursor, limit: ACTIVITY_PROJECTS_PAGE_SIZE, ...call });
  } catch (error) {
    // An organization this key may not list (a project-scoped key): go on with the next owner.
    if (!(isApiError(error) && (error.status === 403 || error.status === 404))) throw error;
    page = { projects: [] };
  }
  const found = addFound(listing.found, page.projects, listing.orgs);
  const last = page.projects.at(-1);
  if (page.projects.length === ACTIVITY_PROJECTS_PAGE_SIZE && last) {
    return { ...feed, listing: { ...listing, found, cursor: page.pagination?.cursor ?? last.id } };
  }
  if (listing.owner < listing.orgs.length) {
    return { ...feed, listing: { orgs: listing.orgs, owner: listing.owner + 1, found } };
  }
  return listed(feed, found, now);
}

async function projectStep(feed: ActivityFeed, projectId: string, now: number, call: Call): Promise<ActivityFeed> {
  try {
    const page = await fetchOperationsPage(projectId, { limit: ACTIVITY_PAGE_SIZE, ...call });
    return { ...feed, checks: { ...feed.checks, [projectId]: { at: now, operations: page.operations } } };
  } catch (error) {
    if (!isApiError(error) || error.isUnauthorized || error.status === 429) throw error;
    // Anything else: keep its last page, say so, and let it wait its turn like the others.
    const before = feed.checks[projectId];
    return { ...feed, checks: { ...feed.checks, [projectId]: { at: now, operations: before?.operations ?? [], problem: error.message } } };
  }
}

function afterFailure(feed: ActivityFeed, step: Step, error: unknown, now: number): ActivityFeed {
  if (isApiError(error) && error.status === 429) {
    const retryAfterMs = error.retryAfterMs;
    const slowDown = {
      // A 429 while already slowed down keeps the first one's start (the view says so once).
      since: isSlowedDown(feed.slowDown, now) ? feed.slowDown.since : now,
      until: now + Math.max(SLOW_DOWN_MS, retryAfterMs ?? 0),
      notBefore: now + (retryAfterMs ?? 1_000),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
    return { ...feed, slowDown };
  }
  // The list could not be read: keep the projects known, try again at the next refresh (or soon, when none are known yet).
  if (step.kind === 'list') return { ...feed, listing: null, listedAt: feed.listedAt, listProblem: error instanceof Error ? error.message : String(error) };
  return feed;
}

/**
 * One step of the activity view: the request the scheduler chose, if its time has come, folded into
 * the feed. Sends nothing when called early. A 401 or an abort ends the step with its error (the
 * session's policy acts on a 401); any other failure is folded in, so the view never retries outside its budget.
 */
export async function runActivityStep(feed: ActivityFeed, settings: ActivitySettings, now: () => number, call: Call): Promise<ActivityFeed> {
  const start = now();
  const plan = planNext(schedulerInput(feed, settings, start));
  if (plan.at > start) return feed;
  const sent = { ...feed, sent: recordSent(feed.sent, { at: start, kind: kindOf(plan.step) }) };
  try {
    return plan.step.kind === 'list' ? await listStep(sent, start, call) : await projectStep(sent, plan.step.projectId, start, call);
  } catch (error) {
    if ((isApiError(error) && error.isUnauthorized) || call.signal?.aborted) throw error;
    return afterFailure(sent, plan.step, error, now());
  }
}

/**
 * Milliseconds until the feed's next step is due (a little after, so the step finds it due); false
 * before the first step has answered (the screen's mount starts it; a failed one, a 401, sends no more).
 */
export function nextStepDelay(feed: ActivityFeed | undefined, settings: ActivitySettings, now: number): number | false {
  if (!feed) return false;
  return Math.max(TIMER_MARGIN_MS, planNext(schedulerInput(feed, settings, now)).at - now + TIMER_MARGIN_MS);
}

const meta = (declared: QueryMeta) => declared;

export const activityQueries = {
  feed: (settings: ActivitySettings) =>
    // One feed whatever the settings: they only pace its steps (a new budget must not start it over).
    // eslint-disable-next-line @tanstack/query/exhaustive-deps
    queryOptions({
      queryKey: ['activity', 'feed'] as const,
      queryFn: (context) => runActivityStep(listFromCache(readFeed(context.client), context.client, Date.now()), settings, Date.now, callOf(context)),
      staleTime: Infinity,
      refetchOnWindowFocus: false,
      refetchOnMount: false,
      retry: false,
      meta: meta({ data: 'activity-feed' }),
    }),
};

function readFeed(client: QueryClient): ActivityFeed {
  return client.getQueryData<ActivityFeed>(['activity', 'feed']) ?? EMPTY_FEED;
}
