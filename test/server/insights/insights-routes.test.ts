import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchivedOperationsPageSchema } from '../../../src/api/archive-schemas';
import { InsightsOverviewSchema, ProjectInsightsSchema } from '../../../src/api/insights-schemas';
import { failedFilters, historyHref, runsFilters } from '../../../src/model/insight-figures';
import { createPageRenderer } from '../../../server/pages/server-render';
import { apiJson, asPage, KEY, projectsByName, signIn, startArchiveServer, waitFollowing } from '../archive/archive-support';
import { removeTestClientDir, type TestServer } from '../start-test-server';

// The insights' routes on a console server over the simulator (PGlite; the sums themselves are checked on both
// stores in test/server/store/insights.test.ts): what a session's key may learn, every Runs and Failed figure
// against the archive's own filtered history, the CSV, and the pages rendered on the server with their table and
// a chart whose bars link, for a browser without scripts.

afterAll(() => removeTestClientDir());

/** Every operation the archive lists for a history address's query (all its pages). */
async function archiveCount(server: TestServer, cookie: string, projectId: string, search: string): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (;;) {
    const response = await asPage(server, cookie, `/archive/projects/${projectId}/operations?${search}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(response.status, response.body).toBe(200);
    const page = ArchivedOperationsPageSchema.parse(JSON.parse(response.body));
    count += page.operations.length;
    if (page.operations.length < 1_000 || !page.pagination) return count;
    cursor = page.pagination.cursor;
  }
}

/** The query of the history address a figure links to. */
const searchOf = (href: string) => href.slice(href.indexOf('?') + 1);

describe('the insights’ routes', () => {
  let server: TestServer;
  let cookie: string;
  let projects: Map<string, { id: string; orgId: string | undefined }>;
  const idOf = (name: string) => projects.get(name)?.id ?? '';

  beforeAll(async () => {
    const entry = await import('../../../src/entry-server');
    await entry.loadScreens();
    // React's development build renders a 90-bar chart slowly on a busy machine: the deadline is not what this file is about.
    server = await startArchiveServer(
      'pglite',
      {},
      { render: createPageRenderer({ entry: () => Promise.resolve(entry) }), renderDeadlineMs: 5_000, maxRenders: 32 },
    );
    cookie = await signIn(server);
    projects = await projectsByName(server);
  }, 120_000);

  afterAll(async () => {
    await server.stop();
  });

  it('says nothing is archived, and whether the key is kept, before any key is kept', async () => {
    const anonymous = await server.request({ path: '/archive/insights', headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
    const overview = InsightsOverviewSchema.parse(JSON.parse((await asPage(server, cookie, '/archive/insights')).body));
    expect(overview).toMatchObject({ projects: [], ownKeyKept: false });
    const project = ProjectInsightsSchema.parse(JSON.parse((await asPage(server, cookie, `/archive/projects/${idOf('blog-backend')}/insights`)).body));
    expect(project).toMatchObject({ project: { id: idOf('blog-backend'), name: 'blog-backend' }, archive: null, ownKeyKept: false, actions: [] });
    expect((await asPage(server, cookie, '/archive/insights?window=1y')).status).toBe(400);
  });

  it('gives one row per archived project, each Runs and Failed what the archive lists for the filter it links to', async () => {
    expect((await asPage(server, cookie, '/archive/sources', 'POST')).status).toBe(201);
    await waitFollowing(server, cookie);
    const response = await asPage(server, cookie, '/archive/insights?window=90d');
    expect(response.status, response.body).toBe(200);
    expect(response.headers['server-timing']).toMatch(/^access;dur=[\d.]+, db;dur=[\d.]+$/);
    const overview = InsightsOverviewSchema.parse(JSON.parse(response.body));
    expect(overview.ownKeyKept).toBe(true);
    expect(overview.projects.map((row) => row.name).sort()).toEqual([...projects.keys()].sort());
    expect(overview.projects.some((row) => row.current.failed > 0)).toBe(true);
    // The simulator's world goes on (a failed operation retried, availability checks) and the collector follows it:
    // the figures and the history they link to are read again until they were read of the same record.
    const mismatches = async () => {
      const { projects: rows, range } = InsightsOverviewSchema.parse(JSON.parse((await asPage(server, cookie, '/archive/insights?window=90d')).body));
      const differing: string[] = [];
      for (const row of rows) {
        const runs = await archiveCount(server, cookie, row.key, searchOf(historyHref(row.key, runsFilters(range.current))));
        const failed = await archiveCount(server, cookie, row.key, searchOf(historyHref(row.key, failedFilters(range.current))));
        if (runs !== row.current.runs || failed !== row.current.failed)
          differing.push(`${row.name}: runs ${row.current.runs} (listed ${runs}), failed ${row.current.failed} (listed ${failed})`);
      }
      return differing;
    };
    await expect.poll(mismatches, { timeout: 30_000, interval: 200 }).toEqual([]);
  }, 90_000);

  it('per action too, and as CSV with the same figures', async () => {
    const big = idOf('acme-analytics-prod');
    const insights = ProjectInsightsSchema.parse(JSON.parse((await asPage(server, cookie, `/archive/projects/${big}/insights?window=30d`)).body));
    expect(insights.archive?.backfilled).toBe(true);
    expect(insights.actions.length).toBeGreaterThan(2);
    // Read again until read of the same record, as above.
    const mismatches = async () => {
      const { actions, range } = ProjectInsightsSchema.parse(JSON.parse((await asPage(server, cookie, `/archive/projects/${big}/insights?window=30d`)).body));
      const differing: string[] = [];
      for (const row of actions) {
        const runs = await archiveCount(server, cookie, big, searchOf(historyHref(big, runsFilters(range.current, row.key))));
        const failed = await archiveCount(server, cookie, big, searchOf(historyHref(big, failedFilters(range.current, row.key))));
        if (runs !== row.current.runs || failed !== row.current.failed)
          differing.push(`${row.key}: runs ${row.current.runs} (listed ${runs}), failed ${row.current.failed} (listed ${failed})`);
      }
      return differing;
    };
    await expect.poll(mismatches, { timeout: 30_000, interval: 200 }).toEqual([]);
    const csv = await asPage(server, cookie, `/archive/projects/${big}/insights?window=30d&format=csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="insights-acme-analytics-prod-30d-\d{8}T\d{6}Z\.csv"$/);
    const [header, ...lines] = csv.body.trimEnd().split('\r\n');
    expect(header?.split(',').slice(0, 4)).toEqual(['action', 'runs', 'failed', 'failure_rate']);
    expect(lines).toHaveLength(insights.actions.length);
    const first = insights.actions[0];
    expect(lines[0]?.split(',').slice(0, 3)).toEqual([first?.key, String(first?.current.runs), String(first?.current.failed)]);
    expect(csv.body).not.toContain(KEY);
  });

  it('says it is the API that did not answer when it cannot ask whether the key reads a project', async () => {
    const fresh = await signIn(server);
    const faults = (method: string, body?: unknown) =>
      server.request({
        method,
        path: '/__sim/faults',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await faults('PUT', { rules: [{ fault: { type: 'status', status: 503 }, method: 'GET', path: '/projects/*' }] })).status).toBe(200);
    try {
      for (const path of ['/archive/insights', `/archive/projects/${idOf('blog-backend')}/insights`]) {
        const answer = await asPage(server, fresh, path);
        expect(answer.status).toBe(503);
        expect((JSON.parse(answer.body) as { message: string }).message).toMatch(
          /^The API did not say whether this key can read the (project|archived projects) \(HTTP 503/,
        );
        // Not the session's doing: it stays open.
        expect(answer.headers['set-cookie']).toBeUndefined();
      }
    } finally {
      await faults('DELETE');
    }
  });

  it('tells a project-scoped key of its own project only: of any other, exactly what the API tells it', async () => {
    const staging = projects.get('acme-analytics-staging');
    if (!staging?.orgId) throw new Error('acme-analytics-staging has no organization');
    const made = (await apiJson(server, `/organizations/${staging.orgId}/api_keys`, KEY, 'POST', { key_name: 'insights', project_id: staging.id })) as {
      id: number;
      key: string;
    };
    const scoped = await signIn(server, made.key);
    const overview = InsightsOverviewSchema.parse(JSON.parse((await asPage(server, scoped, '/archive/insights')).body));
    expect(overview.projects.map((row) => row.name)).toEqual(['acme-analytics-staging']);
    const other = idOf('acme-analytics-prod');
    const [insights, api] = await Promise.all([
      asPage(server, scoped, `/archive/projects/${other}/insights`),
      server.request({ path: `/api/v2/projects/${other}`, headers: { authorization: `Bearer ${made.key}`, accept: 'application/json' } }),
    ]);
    // The same answer, but for its request id (the API gives each answer its own).
    const answer = (response: { status: number; body: string }) => {
      const body = Object.entries(JSON.parse(response.body) as Record<string, unknown>).filter(([name]) => name !== 'request_id');
      return { status: response.status, body: Object.fromEntries(body) };
    };
    expect(answer(insights)).toEqual(answer(api));
    expect(insights.status).toBe(404);
    expect(insights.body).not.toMatch(/runs|acme-analytics-prod/);

    // Revoked, the key's next question to the API ends its session, as on /api/v2 (answers already had are kept a minute).
    await apiJson(server, `/organizations/${staging.orgId}/api_keys/${made.id}`, KEY, 'DELETE');
    const refused = await asPage(server, scoped, '/archive/projects/not-asked-before/insights');
    expect(refused.status).toBe(401);
    expect(refused.headers['set-cookie']?.[0]).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
  });

  it('renders a project’s insights on the server: the table, and a chart whose bars link to each day’s history', async () => {
    const big = idOf('acme-analytics-prod');
    const page = await server.request({ path: `/projects/${big}/insights?window=7d`, headers: { cookie, accept: 'text/html' } });
    expect(page.status).toBe(200);
    const root = page.body.slice(page.body.indexOf('<div id="root">'), page.body.indexOf('<script type="application/json"'));
    expect(root).toContain('<h1 tabindex="-1">Insights</h1>');
    for (const header of ['Action', 'Runs', 'Failed', 'Failure rate', 'p50', 'p95', 'Queue p50', 'Retried'])
      expect(root).toContain(`<th scope="col">${header}</th>`);
    // SVG's own role (an img's children are presentational, which would hide the bars' links).
    const chart = /<svg[^>]*role="graphics-document"[^>]*>([\s\S]*?)<\/svg>/.exec(root);
    expect(chart?.[0]).toMatch(/aria-labelledby="[^"]+"/);
    expect(chart?.[1]).toMatch(/<title id="[^"]+">Operations per day by status, the last 7 days \(UTC\)<\/title>/);
    const bars = [...(chart?.[1] ?? '').matchAll(/<a href="([^"]+)"[^>]*class="ic-bar"/g)].map((match) => match[1] ?? '');
    expect(bars.length).toBeGreaterThanOrEqual(7);
    for (const href of bars) expect(href).toMatch(new RegExp(`^/projects/${big}\\?from=\\d{4}-\\d\\d-\\d\\dT[\\d%A:]+Z&amp;to=`));
    // The overview too, each project's name a link to its own insights.
    const overview = await server.request({ path: '/insights?window=30d', headers: { cookie, accept: 'text/html' } });
    expect(overview.body).toContain(`href="/projects/${big}/insights?window=30d"`);
    expect(overview.body).toContain('<th scope="col">Project</th>');
  });
});
