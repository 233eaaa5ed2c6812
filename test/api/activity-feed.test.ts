import { describe, expect, it } from 'vitest';
import { activityQueries, EMPTY_FEED, nextStepDelay, runActivityStep, type ActivityFeed } from '../../src/api/activity-feed';
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

const json = (body: unknown, init: ResponseInit = {}) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' }, ...init });

const listed: ActivityFeed = { ...EMPTY_FEED, projects: [{ id: 'p1', name: 'one' }], listedAt: 1_000 };

describe('activity feed steps', () => {
  it('reads the organizations, then each owner’s projects, then the projects’ newest pages, one request a step', async () => {
    const transport = transportAnswering((path) =>
      path === '/api/v2/users/me/organizations'
        ? json({ organizations: [{ id: 'org-1', name: 'Acme' }] })
        : json({ projects: [{ id: 'p1', name: 'one', region_id: 'r', pg_version: 16, cpu_used_sec: 0, created_at: '2026-01-01T00:00:00Z' }] }),
    );
    let feed = EMPTY_FEED;
    let now = 0;
    for (let step = 0; step < 3; step++) {
      feed = await runActivityStep(feed, settings, () => now, { transport });
      now += 1_000;
    }
    expect(transport.paths).toEqual(['/api/v2/users/me/organizations', '/api/v2/projects?limit=400', '/api/v2/projects?limit=400&org_id=org-1']);
    expect(feed.projects).toEqual([{ id: 'p1', name: 'one' }]);
    expect(feed.listedAt).toBe(2_000);
    expect(feed.sent).toHaveLength(3);
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
