import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTOR_LOCK } from '../../../server/store/locks';
import { WEBHOOKS_PATH, webhookResumePath } from '../../../src/api/notification-schemas';
import { STORE_UNAVAILABLE_CODE } from '../../../server/store/db';
import { STORE_RETRY_MS } from '../../../server/store/store';
import { ownPostgres, type OwnPostgres } from '../../support/postgres-server';
import { keepHistory, signIn, signOut, startChildServer, waitFor, watchHealth, type ChildServer } from './child-server';

// "The database may go away" (docs/testing.md, "The store going away"): a running server whose every database connection is
// killed, 50 times, idle, mid-query and mid-transaction (pg_terminate_backend of each backend, and the
// whole cluster stopped with `-m immediate` while a row lock makes the server's transactions wait), lives
// on: /healthz answers 200 throughout, the store's routes answer 503 store_unavailable while it is gone and
// 200 again once it is back, and the collector and sign-outs write to it again. The server runs as a child
// process (a crash is its exit, seen here) on a Postgres cluster of this file's own, so stopping it
// disturbs no other test file.

const ROUNDS = 50;
/** Every IMMEDIATE_EVERY-th round stops the whole cluster as a crash would; the others end each backend. */
const IMMEDIATE_EVERY = 8;
const HEALTH_EVERY_MS = 75;
/** A backend of the server's inside a transaction it began (BEGIN came before the statement now waiting on a lock). */
const WAITING_IN_TRANSACTION =
  "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND xact_start < query_start";
const WAITING = "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'";
const LEASE_HELD =
  "SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted AND a.datname = $2";
/** How long a state the test waits for (a backend waiting on the held lock, the store answering) may take. */
const STATE_TIMEOUT_MS = 5_000;

// The collector and the notifications loop kept busy with the store: each project's newest page read and
// written every 100 ms (idle ones every 600 ms), the lock taken again 50 ms after it was lost. Whole histories
// are read once (the backfill): reading them again every second kept both cores busy, slowing the test files
// running beside this one.
const BUSY_ARCHIVE = {
  ARCHIVE_INTERVAL_MS: '100',
  ARCHIVE_LOCK_RETRY_MS: '50',
  ARCHIVE_BUDGET: '700',
  // The test's sign-ins and the collector would share one account's 700 requests a minute.
  SIM_RATE_LIMITS: 'off',
  WEBHOOK_ALLOW_PRIVATE: '1',
};

/** pg_stat_activity and pg_locks as they are now: inside a transaction a backend otherwise reads the first snapshot it took. */
async function activity(client: pg.Client, text: string, params: unknown[]): Promise<unknown[]> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  return (await client.query<Record<string, unknown>>(text, params)).rows;
}

describe('a running server whose database connections are killed', () => {
  let cluster: OwnPostgres;
  let server: ChildServer;
  let database: string;
  // What beforeAll made, undone in reverse whatever failed.
  const cleanups: (() => Promise<void>)[] = [];

  /** A connection of the test's own to the server's database (ended by the caller, or by a kill). */
  const admin = async () => {
    const client = new pg.Client({ connectionString: cluster.url });
    // The immediate stop ends it too: that is expected here, never the test's failure.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  const adminQuery = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<R[]> => {
    const client = await admin();
    try {
      return (await client.query<R>(text, params)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    cluster = await ownPostgres();
    cleanups.push(() => cluster.remove());
    database = new URL(cluster.url).pathname.slice(1);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'ops-console-faults-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    server = await startChildServer({ DATABASE_URL: cluster.url, DATA_DIR: dataDir, ...BUSY_ARCHIVE });
    cleanups.push(() => server.kill());
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(
    'lives and answers /healthz through 50 kills of every connection, mid-transaction included, and uses the store again after each',
    { timeout: 120_000 },
    async ({ annotate }) => {
      const began = performance.now();
      const cookie = await signIn(server);
      expect((await keepHistory(server, cookie)).status).toBe(201);
      // The collector writes what it reads, and the notifications loop has dispatched some of it (the lock below holds its marks).
      await waitFor(
        'the collector to write operations',
        async () => ((await adminQuery<{ n: number }>('SELECT count(*)::int AS n FROM operations'))[0]!.n > 0 ? true : undefined),
        20_000,
      );
      await waitFor(
        'the notifications loop to pass once',
        async () => ((await adminQuery('SELECT 1 FROM operation_transitions WHERE dispatched_at IS NOT NULL LIMIT 1')).length > 0 ? true : undefined),
        20_000,
      );

      // A webhook whose Resume is a transaction (its row, then its deliveries'); it hears of no project, so sends nothing.
      const made = await server.request({
        method: 'POST',
        path: WEBHOOKS_PATH,
        headers: { cookie, origin: server.origin, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: 'http://127.0.0.1:9/hook',
          format: 'json',
          scope: { kind: 'project', projectId: 'no-such-project' },
          events: ['operation.finished'],
        }),
      });
      expect(made.status, made.body).toBe(201);
      const webhookId = (JSON.parse(made.body) as { webhook: { id: string } }).webhook.id;

      // Store traffic throughout: sign-ins, reads and keeps of sources, sign-outs (each writes a revocation).
      const storeAnswers = new Map<string, number>();
      const note = (route: string, status: number, body: string) => {
        const refusal = status === 503 ? (JSON.parse(body) as { code?: string; message?: string }) : undefined;
        // A 503 counts as the store's only when its message names the store, never the API.
        const named = refusal?.message?.startsWith(`The console's store (Postgres at ${new URL(cluster.url).host}`) && !refusal.message.includes('the API');
        const key = `${route} ${status}${refusal ? ` ${refusal.code ?? ''}${named ? '' : ` ${refusal.message ?? ''}`}` : ''}`;
        storeAnswers.set(key, (storeAnswers.get(key) ?? 0) + 1);
      };
      let trafficOn = true;
      const traffic = async () => {
        while (trafficOn) {
          try {
            const session = await signIn(server);
            const listed = await server.request({ path: '/archive/sources', headers: { cookie: session, accept: 'application/json' } });
            note('GET /archive/sources', listed.status, listed.body);
            const kept = await keepHistory(server, session);
            note('POST /archive/sources', kept.status, kept.body);
            const resumed = await server.request({ method: 'POST', path: webhookResumePath(webhookId), headers: { cookie: session, origin: server.origin } });
            note('POST /notifications/webhooks/:id/resume', resumed.status, resumed.body);
            note('POST /session/sign-out', await signOut(server, session), '');
          } catch (error) {
            // A sign-in refused or a connection refused: counted, and asserted on below.
            note(`failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 0, '');
          }
        }
      };
      const trafficDone = Promise.all([traffic(), traffic()]);
      const health = watchHealth(server.port, HEALTH_EVERY_MS);
      let exitedDuring: number | null | undefined;
      void server.exited.then((code) => (exitedDuring = code));

      const reopenMs: { kind: string; ms: number }[] = [];
      let backendsEnded = 0;
      let midTransaction = 0;
      let midQuery = 0;
      const storeAnswersAgain = () =>
        waitFor(
          'the store to answer again',
          async () => ((await server.request({ path: '/archive/sources', headers: { cookie, accept: 'application/json' } })).status === 200 ? true : undefined),
          STORE_RETRY_MS,
        );

      const killOnce = async (round: number) => {
        const immediate = round % IMMEDIATE_EVERY === 0;
        // Half the kills land while the server waits on locks this connection holds: on the notifications'
        // rows, the server's transactions wait mid-way (after BEGIN and a first statement); on the sources' and
        // the sign-outs' rows, single writes wait. Not both at once: the pool's five connections would all
        // wait on the rows, and the transactions on a connection.
        const locks = immediate || round % 4 === 0 ? 'transactions' : round % 2 === 0 ? 'rows' : undefined;
        const holder = await admin();
        // Every kill also ends the collector's lock connection: it steps down and takes the lock again.
        await waitFor(
          'the collector lock held',
          async () => ((await activity(holder, LEASE_HELD, [COLLECTOR_LOCK, database])).length > 0 ? true : undefined),
          STATE_TIMEOUT_MS,
        );
        if (locks === 'transactions') {
          await holder.query('BEGIN');
          // The notifications loop's pass (its marks of what it dispatched) and the collector's writes, Resume's second update, the deliveries' claims.
          await holder.query('LOCK TABLE operation_transitions IN SHARE MODE');
          await holder.query('LOCK TABLE notify_deliveries IN SHARE MODE');
          await waitFor(
            'a server transaction waiting on the held lock',
            async () => ((await activity(holder, WAITING_IN_TRANSACTION, [database])).length > 0 ? true : undefined),
            STATE_TIMEOUT_MS,
          );
          midTransaction += 1;
        } else if (locks === 'rows') {
          await holder.query('BEGIN');
          // The collector's and Keep history's writes to the source, the sign-outs' inserts.
          await holder.query('SELECT 1 FROM archive_sources FOR UPDATE');
          await holder.query('LOCK TABLE revoked_sessions IN SHARE MODE');
          await waitFor(
            'a server write waiting on the held lock',
            async () => ((await activity(holder, WAITING, [database])).length > 0 ? true : undefined),
            STATE_TIMEOUT_MS,
          );
          midQuery += 1;
        }
        if (immediate) {
          await cluster.stop('immediate');
          await holder.end().catch(() => undefined);
          await cluster.start();
        } else {
          backendsEnded += (
            await activity(holder, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])
          ).length;
          await holder.end();
        }
        const killed = performance.now();
        await storeAnswersAgain();
        reopenMs.push({ kind: immediate ? 'immediate' : 'terminate', ms: Math.round(performance.now() - killed) });
      };
      for (let round = 1; round <= ROUNDS; round++) {
        await killOnce(round).catch(async (error: unknown) => {
          // A refused request is often the first sign of a crash: its exit follows within a moment.
          await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 1_000))]);
          const exit = exitedDuring === undefined ? 'still running' : `exited (${exitedDuring})`;
          throw new Error(
            `round ${round}: ${error instanceof Error ? error.message : String(error)}; the server ${exit}; it printed:\n${server.output().slice(-4_000)}`,
            { cause: error },
          );
        });
      }

      trafficOn = false;
      await trafficDone;
      const tally = await health.stop();
      // Writes are back too: a sign-out reaches the table, and the collector (its lock taken again) reads into the store.
      const revocationsBefore = (await adminQuery<{ n: number }>('SELECT count(*)::int AS n FROM revoked_sessions'))[0]!.n;
      expect(await signOut(server, await signIn(server))).toBe(200);
      await waitFor(
        'the last sign-out in the store',
        async () => ((await adminQuery<{ n: number }>('SELECT count(*)::int AS n FROM revoked_sessions'))[0]!.n > revocationsBefore ? true : undefined),
        STATE_TIMEOUT_MS,
      );
      const listedBefore = (await adminQuery<{ at: Date }>('SELECT max(last_listed_at) AS at FROM operations'))[0]!.at;
      await waitFor(
        'the collector to write again',
        async () => ((await adminQuery<{ at: Date }>('SELECT max(last_listed_at) AS at FROM operations'))[0]!.at > listedBefore ? true : undefined),
        10_000,
      );

      const seconds = Math.round((performance.now() - began) / 100) / 10;
      const slowestReopen = Math.max(...reopenMs.map((r) => r.ms));
      await annotate(
        `${ROUNDS} kills (${ROUNDS - Math.floor(ROUNDS / IMMEDIATE_EVERY)} pg_terminate_backend ending ${backendsEnded} backends, ${Math.floor(ROUNDS / IMMEDIATE_EVERY)} immediate stops; ${midTransaction} with a server transaction waiting mid-way on a held lock, ${midQuery} with a write waiting on one) in ${seconds} s; ` +
          `/healthz ${tally.polls} polls ${JSON.stringify(Object.fromEntries(tally.answers))}, slowest ${Math.round(tally.slowestMs)} ms; ` +
          `store answering again after ${Math.min(...reopenMs.map((r) => r.ms))}–${slowestReopen} ms (immediate: ${reopenMs
            .filter((r) => r.kind === 'immediate')
            .map((r) => r.ms)
            .join(', ')} ms); ` +
          `store routes ${JSON.stringify(Object.fromEntries(storeAnswers))}`,
      );

      expect(exitedDuring, server.output()).toBeUndefined();
      expect(tally.polls).toBeGreaterThan(ROUNDS);
      expect(Object.fromEntries(tally.answers)).toEqual({ '200': tally.polls });
      expect(slowestReopen).toBeLessThanOrEqual(STORE_RETRY_MS);
      // While the store was gone its routes said so (503 naming the store), never an internal error.
      for (const answer of storeAnswers.keys()) expect(answer).toMatch(new RegExp(`(?:20[014]|503 ${STORE_UNAVAILABLE_CODE})$`));
      expect(server.output()).not.toContain('Internal error');
      // Nothing kept per lost connection (the collector's lock takes a new one each time).
      expect(server.output()).not.toContain('MaxListenersExceededWarning');
    },
  );
});
