import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHIVE_ACTIVITY_PATH,
  ARCHIVE_PROJECTS_PATH,
  ArchiveActivitySchema,
  ArchivedOperationsPageSchema,
  ArchivedProjectsSchema,
  ArchiveSourceResponseSchema,
  ArchiveSourcesSchema,
} from '../../../src/api/archive-schemas';
import type { Operation } from '../../../src/api/schemas';
import { filterOperations, filtersFromSearch } from '../../../src/model/filters';
import { isInFlight } from '../../../src/model/operation-status';
import { upsertOperations } from '../../../server/store/operations';
import { CASE_OPERATIONS, FILTER_CASES } from '../../features/history/filter-cases';
import { removeTestClientDir, type TestServer } from '../start-test-server';
import { DRIVERS } from '../store/store-drivers';
import { apiJson, apiOperations, asPage, KEY, projectsByName, signIn, startArchiveServer, waitFollowing } from './archive-support';

// The archive's routes (docs/archive.md) end to end on a console server over the simulator, on PGlite and on Postgres: keep
// the session's key, the collector reads every project, and the history's filters are answered from the
// store (every filter case of the history's forms), paged by cursor, for projects the key may read only.

afterAll(() => removeTestClientDir());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(DRIVERS)('the archive on %s', (driver) => {
  let server: TestServer;
  let cookie: string;
  let projects: Map<string, { id: string; orgId: string | undefined }>;
  const idOf = (name: string) => projects.get(name)?.id ?? '';

  beforeAll(async () => {
    server = await startArchiveServer(driver);
    cookie = await signIn(server);
    projects = await projectsByName(server);
  }, 120_000);

  afterAll(async () => {
    await server.stop();
  });

  it('answers a request without a session with the server’s own 401, and refuses a cross-site keep', async () => {
    const anonymous = await server.request({ path: '/archive/sources', headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ code: 'not_signed_in' });
    const crossSite = await server.request({ method: 'POST', path: '/archive/sources', headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect(JSON.parse((await asPage(server, cookie, '/archive/sources')).body)).toEqual({ sources: [] });
  });

  it('answers a readable project no kept key reaches with a 200 saying so, and an empty projects list, before any key is kept', async () => {
    const history = await asPage(server, cookie, `/archive/projects/${idOf('acme-analytics-prod')}/operations?status=failed`);
    expect(history.status, history.body).toBe(200);
    expect(JSON.parse(history.body)).toEqual({ archived: false });
    const list = await asPage(server, cookie, ARCHIVE_PROJECTS_PATH);
    expect(list.status, list.body).toBe(200);
    expect(JSON.parse(list.body)).toEqual({ projects: [] });
  });

  it('keeps the session’s key once, sealed, and reads every project it reaches to its end', async () => {
    const first = await asPage(server, cookie, '/archive/sources', 'POST');
    expect(first.status, first.body).toBe(201);
    const again = await asPage(server, cookie, '/archive/sources', 'POST');
    expect(again.status).toBe(200);
    const idOfSource = (body: string) => ArchiveSourceResponseSchema.parse(JSON.parse(body)).source.id;
    expect(idOfSource(again.body)).toBe(idOfSource(first.body));
    const db = await server.running.store.db();
    const { rows } = await db.query<{ sealed_key: string }>('SELECT sealed_key FROM archive_sources');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed_key).not.toContain(KEY);
    await waitFollowing(server, cookie);
    const { sources } = ArchiveSourcesSchema.parse(JSON.parse((await asPage(server, cookie, '/archive/sources')).body));
    expect(sources[0]).toMatchObject({ isOwnKey: true, keyKind: 'personal', state: 'following', projects: projects.size, lastError: null });
    expect(JSON.stringify(sources)).not.toContain(KEY);
  }, 90_000);

  it('answers the projects list in one request: each project the kept key reaches, its operations in flight and its newest operation’s time', async () => {
    const { projects: listed } = ArchivedProjectsSchema.parse(JSON.parse((await asPage(server, cookie, ARCHIVE_PROJECTS_PATH)).body));
    expect(listed.map((p) => p.id).sort()).toEqual([...projects.values()].map((p) => p.id).sort());
    const db = await server.running.store.db();
    // The figures are the store's rows read by the status rules (the collector may add a read between two asks: asked again then).
    const figuresOf = async (projectId: string) => {
      const now = Date.now();
      const answer = ArchivedProjectsSchema.parse(JSON.parse((await asPage(server, cookie, ARCHIVE_PROJECTS_PATH)).body)).projects.find(
        (p) => p.id === projectId,
      );
      const { rows } = await db.query<{ body: Operation; gone_at: Date | null }>('SELECT body, gone_at FROM operations WHERE project_id = $1', [projectId]);
      const newest = Math.max(...rows.map((row) => Date.parse(row.body.created_at)));
      const inFlight = rows.filter((row) => row.gone_at === null && isInFlight(row.body, now)).length;
      return {
        answer: answer && { ...answer, lastOperationAt: answer.lastOperationAt && Date.parse(answer.lastOperationAt) },
        store: { inFlight, lastOperationAt: newest, operations: rows.length },
      };
    };
    for (const name of ['acme-analytics-prod', 'blog-backend']) {
      await expect
        .poll(
          async () => {
            const { answer, store } = await figuresOf(idOf(name));
            return (
              answer && {
                inFlight: answer.inFlight,
                lastOperationAt: answer.lastOperationAt,
                operations: answer.operations,
                same: answer.inFlight === store.inFlight && answer.lastOperationAt === store.lastOperationAt && answer.operations === store.operations,
              }
            );
          },
          { timeout: 10_000, interval: 100 },
        )
        .toMatchObject({ same: true });
    }
    expect(listed.find((p) => p.id === idOf('acme-analytics-prod'))?.operations).toBeGreaterThan(0);
  });

  it('answers a filter over the big project from the store with every match the API walk finds', async () => {
    const big = idOf('acme-analytics-prod');
    const expected = filterOperations(await apiOperations(server, big), filtersFromSearch(new URLSearchParams('status=failed,error'))).map((op) => op.id);
    const response = await asPage(server, cookie, `/archive/projects/${big}/operations?status=failed,error`);
    expect(response.status, response.body).toBe(200);
    const page = ArchivedOperationsPageSchema.parse(JSON.parse(response.body));
    expect(page.operations.map((op) => op.id)).toEqual(expected);
    expect(page.archive.backfilled).toBe(true);
    expect(response.headers['server-timing']).toMatch(/^db;dur=/);
  });

  describe('every filter case of the history’s forms', () => {
    const operations = CASE_OPERATIONS.map((op) => ({ ...op, project_id: '', updated_at: op.created_at, total_duration_ms: 1_000, failures_count: 0 }));
    beforeAll(async () => {
      // The cases, in a covered project of no operations of its own (the collector finds them unlisted: kept, marked gone).
      const project = idOf('scratchpad');
      const db = await server.running.store.db();
      const listed = operations.map((op) => ({ operation: { ...op, project_id: project }, body: { ...op, project_id: project } }));
      await upsertOperations(db, project, listed, new Date(), false);
    });

    it.each(FILTER_CASES)('?%s', async (search) => {
      const expected = filterOperations(operations, filtersFromSearch(new URLSearchParams(search))).map((op) => op.id);
      const response = await asPage(server, cookie, `/archive/projects/${idOf('scratchpad')}/operations?${new URLSearchParams(search).toString()}`);
      expect(response.status, response.body).toBe(200);
      expect(ArchivedOperationsPageSchema.parse(JSON.parse(response.body)).operations.map((op) => op.id)).toEqual(expected);
    });

    it('pages by cursor: pages of 3 put together are the whole list, in order, each once', async () => {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const response = await asPage(server, cookie, `/archive/projects/${idOf('scratchpad')}/operations?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        const page = ArchivedOperationsPageSchema.parse(JSON.parse(response.body));
        // The first page says how many match in all (a figure linking here reads the same at once); the others need not.
        expect(page.total).toBe(cursor === undefined ? operations.length : undefined);
        ids.push(...page.operations.map((op) => op.id));
        if (page.operations.length < 3) break;
        cursor = page.pagination?.cursor;
      }
      expect(ids).toEqual(operations.map((op) => op.id));
    });

    it('refuses a limit or cursor it did not give', async () => {
      const scratchpad = idOf('scratchpad');
      expect((await asPage(server, cookie, `/archive/projects/${scratchpad}/operations?limit=1001`)).status).toBe(400);
      expect((await asPage(server, cookie, `/archive/projects/${scratchpad}/operations?limit=x`)).status).toBe(400);
      expect((await asPage(server, cookie, `/archive/projects/${scratchpad}/operations?cursor=nonsense`)).status).toBe(400);
    });
  });

  it('keeps an operation the API stops listing, marked with when it was last listed', async () => {
    const personal = idOf('blog-backend');
    const [dropped] = await apiOperations(server, personal);
    if (!dropped) throw new Error('blog-backend has no operations');
    const plan = await server.request({
      method: 'PUT',
      path: '/__sim/faults',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ path: `/projects/${personal}/operations`, fault: { type: 'hide-operations', ids: [dropped.id] } }] }),
    });
    expect(plan.status, plan.body).toBeLessThan(300);
    await expect
      .poll(
        async () => {
          const page = ArchivedOperationsPageSchema.parse(JSON.parse((await asPage(server, cookie, `/archive/projects/${personal}/operations`)).body));
          return page.operations.find((op) => op.id === dropped.id)?.keptSince;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toMatch(/^\d{4}-/);
  }, 40_000);

  it('tells a key without access to a project exactly what the API tells it, and a project no source covers is not archived', async () => {
    const big = idOf('acme-analytics-prod');
    const staging = idOf('acme-analytics-staging');
    const orgId = projects.get('acme-analytics-prod')?.orgId ?? '';
    const created = (await apiJson(server, `/organizations/${orgId}/api_keys`, KEY, 'POST', { key_name: 'prod-only', project_id: big })) as { key: string };
    const scoped = await signIn(server, created.key);
    expect((await asPage(server, scoped, `/archive/projects/${big}/operations?status=failed`)).status).toBe(200);
    const refused = await asPage(server, scoped, `/archive/projects/${staging}/operations`);
    const api = await server.request({ path: `/api/v2/projects/${staging}`, headers: { authorization: `Bearer ${created.key}`, accept: 'application/json' } });
    expect(refused.status).toBe(api.status);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toMatchObject({ message: (JSON.parse(api.body) as { message: string }).message });
    // Its own key reaches no source of its own: it sees none of the other key's.
    expect(JSON.parse((await asPage(server, scoped, '/archive/sources')).body)).toEqual({ sources: [] });
    const other = await asPage(
      server,
      scoped,
      `/archive/sources/${ArchiveSourcesSchema.parse(JSON.parse((await asPage(server, cookie, '/archive/sources')).body)).sources[0]?.id ?? ''}`,
      'DELETE',
    );
    expect(other.status).toBe(404);
    // A project the key cannot read is the API's own 404, never an archive's "not archived".
    const notCovered = await asPage(server, cookie, '/archive/projects/no-such-project/operations');
    expect(notCovered.status).toBe(404);
    expect(JSON.parse(notCovered.body)).not.toMatchObject({ archived: false });
  });

  it('answers Activity from the store for the projects the session’s own kept key reaches', async () => {
    const response = await asPage(server, cookie, '/archive/activity');
    expect(response.status, response.body).toBe(200);
    const body = JSON.parse(response.body) as { projects: { id: string }[]; operations: { id: string }[] };
    expect(body.projects.map((p) => p.id).sort()).toEqual([...projects.values()].map((p) => p.id).sort());
  });

  it('answers Activity with every operation in flight by the status rules, also those older than its window: a failed one awaiting a retry, one of a status it does not know', async () => {
    const now = Date.now();
    const scratchpad = idOf('scratchpad');
    const longAgo = new Date(now - 3 * DAY).toISOString();
    const operation = (id: string, status: string, retryAt?: string): Operation => ({
      id,
      project_id: scratchpad,
      action: 'apply_config',
      status,
      failures_count: status === 'failed' ? 1 : 0,
      created_at: longAgo,
      updated_at: longAgo,
      total_duration_ms: 0,
      ...(retryAt ? { retry_at: retryAt } : {}),
    });
    const operations = [
      operation('activity-failed-retry-ahead', 'failed', new Date(now + HOUR).toISOString()),
      operation('activity-status-unknown', 'paused_by_platform'),
      operation('activity-running', 'running'),
      operation('activity-failed-for-good', 'failed', longAgo),
      operation('activity-finished', 'finished'),
    ];
    const db = await server.running.store.db();
    await upsertOperations(
      db,
      scratchpad,
      operations.map((op) => ({ operation: op, body: op })),
      new Date(now),
      false,
    );

    const response = await asPage(server, cookie, ARCHIVE_ACTIVITY_PATH);
    expect(response.status, response.body).toBe(200);
    const shown = ArchiveActivitySchema.parse(JSON.parse(response.body))
      .operations.map((op) => op.id)
      .filter((id) => id.startsWith('activity-'))
      .sort();
    expect(shown).toEqual(
      operations
        .filter((op) => isInFlight(op, now))
        .map((op) => op.id)
        .sort(),
    );
    expect(shown).toEqual(['activity-failed-retry-ahead', 'activity-running', 'activity-status-unknown']);
  });

  it('disables a source whose key the API rejects, and says so; Remove deletes the sealed key', async () => {
    const orgId = projects.get('acme-analytics-prod')?.orgId ?? '';
    const created = (await apiJson(server, `/organizations/${orgId}/api_keys`, KEY, 'POST', {
      key_name: 'soon-revoked',
      project_id: idOf('acme-analytics-prod'),
    })) as { key: string; id: number };
    const session = await signIn(server, created.key);
    expect((await asPage(server, session, '/archive/sources', 'POST')).status).toBe(201);
    // It has listed the project it reaches before the key is revoked.
    await expect
      .poll(async () => ArchiveSourcesSchema.parse(JSON.parse((await asPage(server, session, '/archive/sources')).body)).sources[0]?.projects, {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(1);
    await apiJson(server, `/organizations/${orgId}/api_keys/${created.id}`, KEY, 'DELETE');
    await expect
      .poll(async () => ArchiveSourcesSchema.parse(JSON.parse((await asPage(server, session, '/archive/sources')).body)).sources[0], {
        timeout: 30_000,
        interval: 100,
      })
      .toMatchObject({ state: 'disabled', lastError: expect.stringContaining('401') as string });
    const { sources } = ArchiveSourcesSchema.parse(JSON.parse((await asPage(server, cookie, '/archive/sources')).body));
    const removed = await asPage(server, cookie, `/archive/sources/${sources[0]?.id ?? ''}`, 'DELETE');
    expect(removed.status).toBe(204);
    // Only the refused key's source reaches the project now: what it kept is served, but it covers nothing newer.
    const stopped = await asPage(server, cookie, `/archive/projects/${idOf('acme-analytics-prod')}/operations?status=failed`);
    expect(ArchivedOperationsPageSchema.parse(JSON.parse(stopped.body)).archive.stoppedAt).toEqual(expect.any(String));
    const db = await server.running.store.db();
    const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM archive_sources WHERE key_kind = $1', ['personal']);
    expect(rows[0]?.count).toBe(0);
  }, 40_000);
});
