import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { activityQueries, EMPTY_FEED, listFromCache, nextStepDelay, runActivityStep, schedulerInput, type ActivityFeed } from '../../src/api/activity-feed';
import { authQueries } from '../../src/api/auth';
import { PROJECTS_PAGE_SIZE, projectQueries } from '../../src/api/projects';
import { LIST_REFRESH_MS, planNext } from '../../src/lib/activity-scheduler';
import { sharedSchemaOf } from '../../src/api/query-meta';
import type { Transport } from '../../src/api/request';

// One step of the activity feed against a stand-in transport: what it sends, and what it keeps.

const settings = { budgetPerMinute: 60, intervalMs: 5_000 };

function transportAnswering(answer: (pathname: string) => Response): Transport & { paths: string[] } {
  const paths: string[] = [];
  const transport: Transport = (path) => {
    paths.push(path);
    return Promise.resolve(answer(new URL(path, 'http://console.test').pathname));
  };
  return Object.assign(transport, { paths });
}

const json = (body: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' }, ...init });

const listed: ActivityFeed = { ...EMPTY_FEED, projects: [{ id: 'p1', name: 'one' }], listedAt: 1_000 };

describe('activity feed steps', () => {
  it('reads the organizations, then each owner’s projects, taking turns with the projects found so far, one request a step', async () => {
    const transport = transportAnswering((path) =>
      path === '/api/v2/users/me/organizations'
        ? json({ organizations: [{ id: 'org-1', name: 'Acme' }] })
        : json({ projects: [{ id: 'p1', name: 'one', region_id: 'r', pg_version: 16, cpu_used_sec: 0, created_at: '2026-01-01T00:00:00Z' }] }),
    );
    let feed = EMPTY_FEED;
    let now = 0;
    for (let step = 0; step < 4; step++) {
      feed = await runActivityStep(feed, settings, () => now, { transport });
      now += 1_000;
    }
    expect(transport.paths).toEqual([
      '/api/v2/users/me/organizations',
      '/api/v2/projects?limit=400',
      // The first project found is read before the list's next page: the first rows need not wait for the whole list.
      '/api/v2/projects/p1/operations?limit=20',
      '/api/v2/projects?limit=400&org_id=org-1',
    ]);
    expect(feed.projects).toEqual([{ id: 'p1', name: 'one' }]);
    expect(feed.listedAt).toBe(3_000);
    expect(feed.checks.p1?.at).toBe(2_000);
    expect(feed.sent).toHaveLength(4);
  });

  it('sends nothing when called before its time', async () => {
    const transport = transportAnswering(() => json({ operations: [] }));
    const feed = { ...listed, sent: [{ at: 1_000, kind: 'list' as const }] };
    expect(await runActivityStep(feed, settings, () => 1_500, { transport })).toBe(feed);
    expect(transport.paths).toEqual([]);
    expect(nextStepDelay(feed, settings, 1_500)).toBeGreaterThanOrEqual(500);
  });

  it('remembers a 429 as a slow-down with its Retry-After instead of failing', async () => {
    const transport = transportAnswering(() => json({ code: '', message: 'Too many requests' }, { status: 429, headers: { 'Retry-After': '5' } }));
    const feed = await runActivityStep(listed, settings, () => 10_000, { transport });
    expect(feed.slowDown).toMatchObject({ since: 10_000, notBefore: 15_000, retryAfterMs: 5_000 });
    expect(feed.checks).toEqual({});
  });

  it('is shared between tabs under a schema that its own steps pass', async () => {
    const transport = transportAnswering(() => json({ organizations: [] }));
    const feed = await runActivityStep(EMPTY_FEED, settings, () => 0, { transport });
    const schema = sharedSchemaOf({ meta: activityQueries.feed(settings).meta });
    expect(schema?.safeParse(feed).success).toBe(true);
    expect(schema?.safeParse({ ...feed, sent: 'everything' }).success).toBe(false);
  });
});

describe('the activity feed’s first seconds', () => {
  const project = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    name: id,
    region_id: 'r',
    pg_version: 16,
    cpu_used_sec: 0,
    created_at: '2026-01-01T00:00:00Z',
    ...extra,
  });

  it('takes the organizations and project lists the projects page already read, and sends its first request for a project', async () => {
    const client = new QueryClient();
    const now = Date.parse('2026-11-25T12:00:00Z');
    client.setQueryData(authQueries.organizations().queryKey, [{ id: 'org-1', name: 'Acme' }] as never, { updatedAt: now - 5_000 });
    client.setQueryData(
      projectQueries.list(undefined).queryKey,
      { pages: [{ projects: [project('mine')] }], pageParams: [undefined] },
      { updatedAt: now - 5_000 },
    );
    client.setQueryData(
      projectQueries.list('org-1').queryKey,
      { pages: [{ projects: [project('theirs', { org_id: 'org-1' })] }], pageParams: [undefined] },
      { updatedAt: now - 4_000 },
    );
    const transport = transportAnswering(() => json({ operations: [] }));

    const feed = await runActivityStep(listFromCache(EMPTY_FEED, client, now), settings, () => now, { transport });

    expect(transport.paths).toHaveLength(1);
    expect(transport.paths[0]).toMatch(/^\/api\/v2\/projects\/(mine|theirs)\/operations\?/);
    expect(feed.projects.map((p) => [p.id, p.orgName])).toEqual([
      ['mine', undefined],
      ['theirs', 'Acme'],
    ]);
    expect(feed.listedAt).toBe(now - 5_000);
  });

  it('reads what the cache does not hold (a list not read to its end, or too old) as usual, from there on', () => {
    const client = new QueryClient();
    const now = 10 * 60_000;
    client.setQueryData(authQueries.organizations().queryKey, [{ id: 'org-1', name: 'Acme' }] as never, { updatedAt: now - 1_000 });
    const fullPage = Array.from({ length: PROJECTS_PAGE_SIZE }, (_, i) => project(`p${i}`));
    client.setQueryData(projectQueries.list(undefined).queryKey, { pages: [{ projects: fullPage }], pageParams: [undefined] }, { updatedAt: now - 1_000 });
    expect(listFromCache(EMPTY_FEED, client, now).listing).toEqual({ orgs: [{ id: 'org-1', name: 'Acme' }], owner: 0, found: [] });
    // Older than the list's own refresh time: read again.
    expect(listFromCache(EMPTY_FEED, client, now + LIST_REFRESH_MS)).toBe(EMPTY_FEED);
  });

  it('reads the most recently active projects first in the first round', () => {
    const feed: ActivityFeed = {
      ...EMPTY_FEED,
      listedAt: 0,
      projects: [
        { id: 'quiet', name: 'quiet', activeAt: 1_000 },
        { id: 'never', name: 'never' },
        { id: 'lively', name: 'lively', activeAt: 9_000 },
      ],
    };
    const order: string[] = [];
    let current = feed;
    for (let i = 0; i < 3; i++) {
      const plan = planNext(schedulerInput(current, settings, i * 1_000));
      if (plan.step.kind !== 'project') throw new Error('expected a project');
      order.push(plan.step.projectId);
      current = {
        ...current,
        checks: { ...current.checks, [plan.step.projectId]: { at: i * 1_000, operations: [] } },
        sent: [...current.sent, { at: i * 1_000, kind: 'idle' }],
      };
    }
    expect(order).toEqual(['lively', 'quiet', 'never']);
  });
});
