import { spawn, type ChildProcess } from 'node:child_process';
import cluster from 'node:cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processes } from '../../../server/config';
import { schedulingPolicy } from '../../../server/process/run';
import { REVOCATION_POLL_MS, SPREAD_WAIT_MS } from '../../../server/session/stored-revocations';
import { KEY_REJECTED_CODE } from '../../../src/config/session';
import { childScript } from '../../support/child-scripts';
import { rawRequest, type RawRequest } from '../http-helpers';
import { postgresDatabase } from '../store/store-drivers';

// `npm start` as two instances on one Postgres (server/process/run.ts): every request sees one simulated
// world whichever instance answers it (the simulator runs in the primary, each instance forwards to it as
// to any API), a sign-out through one instance holds on the other (through the store), and SIGTERM drains
// both and exits 0. Each request goes on a fresh connection. In production each instance accepts its own
// (schedulingPolicy): which one takes a connection is then the kernel's pick, and all eight could land on
// one. These tests are about what the instances share, so they ask for round-robin, where the primary
// hands the connections to the instances in turn and both answer half of them.

const KEY = 'cluster-test-key-00000000000000000';
const TRIES = 8;

describe('how connections reach the workers', () => {
  it('has each worker accept its own, so a burst is not handed over one connection per busy turn', () => {
    expect(schedulingPolicy({})).toBe(cluster.SCHED_NONE);
    expect(schedulingPolicy({ NODE_CLUSTER_SCHED_POLICY: 'none' })).toBe(cluster.SCHED_NONE);
  });

  it("keeps Node's round-robin when the operator asks for it", () => {
    expect(schedulingPolicy({ NODE_CLUSTER_SCHED_POLICY: 'rr' })).toBe(cluster.SCHED_RR);
  });
});

describe('how many processes serve', () => {
  it('is one with the embedded store, whatever WEB_CONCURRENCY asks, and says why', () => {
    expect(processes({ databaseUrl: undefined, webConcurrency: undefined })).toEqual({ count: 1 });
    expect(processes({ databaseUrl: undefined, webConcurrency: 4 })).toEqual({
      count: 1,
      note: expect.stringContaining('WEB_CONCURRENCY=4 needs DATABASE_URL') as string,
    });
  });

  it('is WEB_CONCURRENCY with a Postgres server, one per core when unset', () => {
    expect(processes({ databaseUrl: 'postgres://db/console', webConcurrency: 3 })).toEqual({ count: 3 });
    expect(processes({ databaseUrl: 'postgres://db/console', webConcurrency: undefined }).count).toBeGreaterThanOrEqual(1);
  });
});

describe('two instances on one Postgres', () => {
  let child: ChildProcess;
  let output = '';
  let port = 0;
  let exited: Promise<number | null>;
  let faults = '';
  const request = (options: RawRequest) => rawRequest(port, { ...options, headers: { connection: 'close', ...options.headers } });
  const origin = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    child = spawn(process.execPath, [await childScript('instances-server')], {
      env: {
        ...process.env,
        NODE_CLUSTER_SCHED_POLICY: 'rr',
        PORT: '0',
        HOST: '127.0.0.1',
        WEB_CONCURRENCY: '2',
        SIM_API_KEY: KEY,
        SIM_FAULTS: '1',
        API_URL: '',
        SESSION_SECRET: 'instances-test-session-secret-000000000000',
        DATABASE_URL: await postgresDatabase(),
        NODE_ENV: 'production',
        // The drain's accepting grace is for a balancer; nothing polls here.
        SHUTDOWN_GRACE_MS: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    // The banner names the port once a worker listens; an early exit is a failure to start.
    port = await new Promise<number>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const found = /Ops Console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)?.[1];
        faults = /Fault injection: (\S+)/.exec(output)?.[1] ?? '';
        if (found && faults) resolve(Number(found));
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      void exited.then((code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)));
    });
  }, 90_000);
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('prints one banner, with every line and one demo key, for both instances', () => {
    expect(output.match(/Ops Console: /g)).toHaveLength(1);
    expect(output).toContain('Instances: 2 processes');
    expect(output).toContain(`Demo API key: ${KEY}`);
    expect(output).toMatch(/Simulator: in the primary process at http:\/\/127\.0\.0\.1:\d+\/api\/v2/);
    expect(output).toMatch(/Store: Postgres at 127\.0\.0\.1:\d+\//);
  });

  it('shows every request the same simulated world: a project made through one worker is listed by all', async () => {
    const auth = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
    const made = await request({
      method: 'POST',
      path: '/api/v2/projects',
      headers: { ...auth, 'content-type': 'application/json', origin: origin() },
      body: JSON.stringify({ project: { name: 'made-through-one-worker' } }),
    });
    expect(made.status, made.body).toBe(201);

    const listings = await Promise.all(Array.from({ length: TRIES }, () => request({ path: '/api/v2/projects?limit=400', headers: auth })));

    for (const listing of listings) expect(listing.body).toContain('made-through-one-worker');
  });

  it('keeps one fault plan, on the simulator’s own address, that every instance meets', async () => {
    const plan = JSON.stringify({ rules: [{ fault: { type: 'status', status: 503 }, method: 'GET', path: '/projects' }] });
    const set = await fetch(faults, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: plan });
    expect(set.status).toBe(200);

    const answers = await Promise.all(Array.from({ length: TRIES }, () => request({ path: '/api/v2/projects', headers: { authorization: `Bearer ${KEY}` } })));

    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: TRIES }, () => 503));
    // The console in front of an API it forwards to never mounts the control itself.
    expect((await request({ method: 'PUT', path: '/__sim/faults', headers: { 'content-type': 'application/json' }, body: plan })).status).toBe(404);
    expect((await fetch(faults, { method: 'DELETE' })).status).toBe(200);
  });

  it('ends a signed-out session on every instance, not only the one that signed it out', async () => {
    const signIn = await request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: origin() },
      body: JSON.stringify({ key: KEY }),
    });
    expect(signIn.status, signIn.body).toBe(200);
    const cookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
    const reads = await Promise.all(Array.from({ length: TRIES }, () => request({ path: '/api/v2/projects?limit=1', headers: { cookie } })));
    expect(reads.map((read) => read.status)).toEqual(Array.from({ length: TRIES }, () => 200));

    const signOut = await request({ method: 'POST', path: '/session/sign-out', headers: { cookie, origin: origin() } });
    expect(signOut.status).toBeLessThan(400);

    // Sign-out answers once its own instance hears the store announce it, or after SPREAD_WAIT_MS when the store is
    // slower than that (server/session/stored-revocations.ts): on two busy cores its write can take longer, and the
    // other instance then refuses the cookie when the write lands or at its next read of the store (REVOCATION_POLL_MS).
    const statuses = async () =>
      (await Promise.all(Array.from({ length: TRIES }, () => request({ path: '/api/v2/projects?limit=1', headers: { cookie } })))).map((read) => read.status);
    await expect.poll(statuses, { timeout: SPREAD_WAIT_MS + REVOCATION_POLL_MS + 5_000, interval: 250 }).toEqual(Array.from({ length: TRIES }, () => 401));
  });

  it('tells every instance why a session ended: its key refused by the API through one is refused by all, never "signed out"', async () => {
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', origin: origin() };
    const created = await request({ method: 'POST', path: '/api/v2/api_keys', headers: auth, body: '{"key_name":"refused across workers"}' });
    expect(created.status, created.body).toBe(200);
    const { id, key } = JSON.parse(created.body) as { id: number; key: string };
    const signIn = await request({
      method: 'POST',
      path: '/session',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: origin() },
      body: JSON.stringify({ key }),
    });
    const cookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
    expect((await request({ method: 'DELETE', path: `/api/v2/api_keys/${id}`, headers: auth })).status).toBe(200);

    expect((await request({ path: '/api/v2/projects?limit=1', headers: { cookie } })).status).toBe(401);
    // The 401 that ended it went out at once; the other instance hears of it through the store a moment later.
    const refusals = async () =>
      (await Promise.all(Array.from({ length: TRIES }, () => request({ path: '/api/v2/projects?limit=1', headers: { cookie } })))).map((read) => [
        read.status,
        (JSON.parse(read.body) as { code?: string }).code,
      ]);
    await expect.poll(refusals, { timeout: 5_000, interval: 50 }).toEqual(Array.from({ length: TRIES }, () => [401, KEY_REJECTED_CODE]));
  });

  // The drain may take up to its grace (20 s) by design: a test bound shorter than that would test the machine.
  it('drains and exits 0 on SIGTERM, instances and all', { timeout: 25_000 }, async () => {
    child.kill('SIGTERM');

    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM: the instances finish the requests in flight');
    await expect(rawRequest(port, { path: '/healthz' })).rejects.toThrow();
  });
});
