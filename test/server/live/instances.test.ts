// Two instances on one Postgres (docs/live.md, "How a change travels"): a change written through one instance
// reaches the streams of the other (NOTIFY on its own listening connection), and when that connection is cut,
// the instance listens again and reads from its last sequence what was written meanwhile (NOTIFY is lost while
// nobody listens).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { appendChanges } from '../../../server/store/live-changes';
import { KEY, projectsByName, signIn } from '../archive/archive-support';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import { postgresDatabase } from '../store/store-drivers';
import { openSse } from './sse-client';

afterAll(() => removeTestClientDir());

const SECRET = randomBytes(32).toString('base64url');

describe('two instances on one DATABASE_URL', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it("hear each other's changes, and one whose listening connection was cut reads what it missed", async () => {
    const url = await postgresDatabase();
    const env = { SIM_API_KEY: KEY, SESSION_SECRET: SECRET, DATABASE_URL: url, ARCHIVE_LOCK_RETRY_MS: '100' };
    const [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
    servers.push(a, b);
    // The demo world is the same on both (its seed): a project of one is a project of the other.
    const projectId = [...(await projectsByName(b)).values()][0]?.id ?? '';
    const cookie = await signIn(b);
    const stream = await openSse(b.port, '/events', { cookie });
    await stream.until((e) => e.event === 'ready');

    const write = async (id: string) =>
      appendChanges(await a.running.store.db(), [
        {
          projectId,
          operationId: id,
          status: 'running',
          operation: {
            id,
            project_id: projectId,
            action: 'apply_config',
            status: 'running',
            failures_count: 0,
            created_at: '2026-01-01T00:00:00Z',
            updated_at: '2026-01-01T00:00:00Z',
            total_duration_ms: 0,
          },
        },
      ]);
    await write('op-through-a');
    await stream.until((e) => e.event === 'operation' && e.data.includes('op-through-a'));

    // Every listening connection cut: what is written before they listen again is read after, by sequence.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`);
    } finally {
      await admin.end();
    }
    await write('op-while-deaf');
    await stream.until((e) => e.event === 'operation' && e.data.includes('op-while-deaf'), 15_000);
    const ids = stream.events.filter((e) => e.event === 'operation').map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    stream.close();
  }, 120_000);
});
