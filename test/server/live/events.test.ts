// GET /events as a page's EventSource reads it (docs/live.md): the head (never compressed nor buffered), the
// `retry:` and `id:` lines, each change of a readable project as `event: operation`, replay after
// Last-Event-ID (or ?after=), `reset` when what was missed is gone, nothing about a project the key cannot
// read, and the follower reading a watched operation to its end. Then two instances on one store.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OperationSchema } from '../../../src/api/schemas';
import { appendChanges, latestChange } from '../../../server/store/live-changes';
import { apiJson, KEY, projectsByName, signIn, startArchiveServer } from '../archive/archive-support';
import { removeTestClientDir, type TestServer } from '../start-test-server';
import { openSse, type SseStream } from './sse-client';

afterAll(() => removeTestClientDir());

const operationOf = (projectId: string, id: string, status: string) => ({
  id,
  project_id: projectId,
  action: 'apply_config',
  status,
  failures_count: 0,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:01Z',
  total_duration_ms: 10,
});

describe('GET /events on one instance (PGlite)', () => {
  let server: TestServer;
  let cookie: string;
  let projectId: string;
  const streams: SseStream[] = [];
  const open = async (path = '/events', headers: Record<string, string> = {}) => {
    const stream = await openSse(server.port, path, { cookie, 'accept-encoding': 'gzip, br', ...headers });
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    server = await startArchiveServer('pglite');
    cookie = await signIn(server);
    projectId = [...(await projectsByName(server)).values()][0]?.id ?? '';
  }, 60_000);
  // Each test's streams closed after it (a session holds a few at most).
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => server.stop());

  const append = async (id: string, status: string, project = projectId) =>
    appendChanges(await server.running.store.db(), [{ projectId: project, operationId: id, status, operation: operationOf(project, id, status) }]);

  it('needs a session', async () => {
    const refused = await server.request({ method: 'GET', path: '/events', headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(401);
  });

  it('answers an event stream, uncompressed and unbuffered, with retry, an id to resume from, and each change as it is recorded', async () => {
    const stream = await open();
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-cache, no-transform');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    expect(stream.headers['content-encoding']).toBeUndefined();
    const ready = await stream.until((e) => e.event === 'ready');
    expect(stream.text().startsWith('retry: ')).toBe(true);
    expect(Number(ready.id)).toBeGreaterThanOrEqual(0);

    await append('op-live-1', 'running');
    const event = await stream.until((e) => e.event === 'operation' && e.data.includes('op-live-1'));
    expect(Number(event.id)).toBeGreaterThan(Number(ready.id));
    // What the pages read of an operation: the API's own wire shape.
    const data = OperationSchema.parse(JSON.parse(event.data));
    expect(data).toMatchObject({ id: 'op-live-1', project_id: projectId, status: 'running', action: 'apply_config' });
  });

  it('holds a few streams per session at most', async () => {
    const held = await Promise.all([open(), open(), open(), open()]);
    await Promise.all(held.map((stream) => stream.until((e) => e.event === 'ready')));
    const refused = await open();
    expect(refused.status).toBe(429);
    held[0].close();
    await expect.poll(async () => (await open()).status, { timeout: 5_000, interval: 100 }).toBe(200);
  });

  it('says nothing about a project the key cannot read', async () => {
    const stream = await open();
    await stream.until((e) => e.event === 'ready');
    await append('op-hidden', 'running', 'project-of-someone-else');
    await append('op-after-hidden', 'running');
    await stream.until((e) => e.data.includes('op-after-hidden'));
    expect(stream.text()).not.toContain('op-hidden');
    expect(stream.text()).not.toContain('project-of-someone-else');
  });

  it('replays what a reconnect missed after Last-Event-ID, or after ?after=', async () => {
    const first = await open();
    const ready = await first.until((e) => e.event === 'ready');
    first.close();
    await append('op-missed-1', 'running');
    await append('op-missed-2', 'finished');
    const again = await open('/events', { 'last-event-id': ready.id ?? '' });
    const missed = await again.until((e) => e.data.includes('op-missed-2'));
    const seen = again.events.filter((e) => e.event === 'operation').map((e) => (JSON.parse(e.data) as { id: string }).id);
    expect(seen).toEqual(['op-missed-1', 'op-missed-2']);
    const byQuery = await open(`/events?after=${ready.id ?? ''}`);
    await byQuery.until((e) => e.data.includes('op-missed-2'));
    // Nothing twice: a later change comes once, after what was replayed.
    await append('op-after-replay', 'running');
    await again.until((e) => e.data.includes('op-after-replay'));
    expect(again.events.filter((e) => e.data.includes('op-missed-2'))).toHaveLength(1);
    expect(Number(again.events.at(-1)?.id)).toBeGreaterThan(Number(missed.id));
  });

  it('says reset when what was missed is no longer kept', async () => {
    const db = await server.running.store.db();
    await append('op-old', 'running');
    const before = await latestChange(db);
    await append('op-pruned', 'running');
    await append('op-kept', 'running');
    // Pruned, as the upkeep does with what is older than the feed keeps.
    await db.query('DELETE FROM live_changes WHERE seq <= $1', [before + 1]);
    const stream = await open('/events', { 'last-event-id': String(before - 1) });
    const reset = await stream.until((e) => e.event === 'reset');
    expect(Number(reset.id)).toBeGreaterThanOrEqual(before + 2);
    expect(stream.text()).not.toContain('op-pruned');
  });

  it('follows a watched operation to its end, whoever watches it', async () => {
    const stream = await open();
    await stream.until((e) => e.event === 'ready');
    const created = (await apiJson(server, `/projects/${projectId}/branches`, KEY, 'POST', {})) as { operations: { id: string }[] };
    const operationId = created.operations[0]?.id ?? '';
    const body = JSON.stringify({ watches: [{ project_id: projectId, operation_id: operationId }] });
    const headers = { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${server.port}` };
    for (let i = 0; i < 3; i++) {
      const watched = await server.request({ method: 'POST', path: '/events/watch', headers, body });
      expect(watched.status, watched.body).toBe(200);
    }
    const end = await stream.until((e) => {
      if (e.event !== 'operation') return false;
      const op = JSON.parse(e.data) as { id: string; status: string };
      return op.id === operationId && op.status === 'finished';
    }, 30_000);
    expect(Number(end.id)).toBeGreaterThan(0);
  }, 40_000);

  it('ends its streams when the instance drains', async () => {
    const other = await startArchiveServer('pglite');
    const otherCookie = await signIn(other);
    const stream = await openSse(other.port, '/events', { cookie: otherCookie });
    await stream.until((e) => e.event === 'ready');
    const stopping = other.stop();
    await stream.ended;
    await stopping;
  }, 60_000);
});
