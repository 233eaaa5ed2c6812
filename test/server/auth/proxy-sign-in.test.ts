import http from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeamGate, type TeamSettings } from '../../../server/auth/team-gate';
import { readTeamConfig } from '../../../server/auth/team-config';
import { readAudit, recordAudit } from '../../../server/store/audit-trail';
import { dbOf } from '../../../server/store/store';
import { AuditPageSchema, auditCsvLine, auditFiltersOf } from '../../../src/model/audit';
import { WEBHOOKS_PATH } from '../../../src/api/notification-schemas';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';
import type { RawResponse } from '../http-helpers';

// Team sign-in behind an identity proxy (docs/team.md, "Behind an identity proxy"): the proxy's headers name a
// person only on a connection from TRUSTED_PROXIES; the person's role, from their groups, decides what the server
// lets through; every change and refusal is in the audit trail, which says who started each operation.

const TEAM_KEY = 'proxy-team-key-0000000000000000';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    SIM_API_KEY: TEAM_KEY,
    SIGN_IN: 'proxy',
    TEAM_API_KEY: TEAM_KEY,
    ROLES: 'admin=platform-admins;operator=ops-oncall;viewer=ops-readers',
    TRUSTED_PROXIES: '127.0.0.1/32',
  });
}, 60_000);
afterAll(async () => {
  await server.stop();
  await removeTestClientDir();
});

interface Ask {
  method?: string;
  path: string;
  as?: { email: string; groups: string };
  /** The client's own address (the server listens on 127.0.0.1). */
  from?: string;
}

function ask({ method = 'GET', path, as, from = '127.0.0.1' }: Ask): Promise<RawResponse> {
  const headers: Record<string, string> = as ? { 'x-forwarded-email': as.email, 'x-forwarded-groups': as.groups } : {};
  if (method !== 'GET') Object.assign(headers, { origin: `http://127.0.0.1:${server.port}`, 'content-type': 'application/json' });
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, localAddress: from, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), chunks: [] }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

const viewer = { email: 'vera@example.com', groups: 'ops-readers' };
const operator = { email: 'otto@example.com', groups: 'ops-readers, ops-oncall' };
const admin = { email: 'ada@example.com', groups: 'platform-admins' };

async function firstCompute(): Promise<{ projectId: string; endpointId: string }> {
  const projects = JSON.parse((await ask({ path: '/api/v2/projects', as: viewer })).body) as { projects: { id: string }[] };
  for (const { id } of projects.projects) {
    const endpoints = JSON.parse((await ask({ path: `/api/v2/projects/${id}/endpoints`, as: viewer })).body) as { endpoints: { id: string }[] };
    const endpoint = endpoints.endpoints[0];
    if (endpoint) return { projectId: id, endpointId: endpoint.id };
  }
  throw new Error('The simulator has no compute');
}

describe('SIGN_IN=proxy', () => {
  it('signs in the person a trusted proxy names, with the role their groups give', async () => {
    const answer = await ask({ path: '/session', as: operator });
    expect(JSON.parse(answer.body)).toMatchObject({ signedIn: true, team: 'proxy', person: { email: operator.email, role: 'operator' } });
    expect(answer.body).not.toContain(TEAM_KEY);
  });

  it('signs no one in from an address outside TRUSTED_PROXIES, and says so in the log with the request id', async () => {
    const answer = await ask({ path: '/session', as: admin, from: '127.0.0.2' });
    expect(JSON.parse(answer.body)).toMatchObject({ signedIn: false });
    const api = await ask({ path: '/api/v2/projects', as: admin, from: '127.0.0.2' });
    expect(api.status).toBe(401);
    const warned = server.lines.find((line) => line.event === 'auth.untrusted_proxy_headers');
    expect(warned).toMatchObject({ level: 'warn', address: '127.0.0.2' });
    expect(typeof warned?.requestId).toBe('string');
  });

  it('refuses a viewer’s restart with the role it needs, lets an operator’s through, and records both with who started the operation', async () => {
    const { projectId, endpointId } = await firstCompute();
    const path = `/api/v2/projects/${projectId}/endpoints/${endpointId}/restart`;
    const refused = await ask({ method: 'POST', path, as: viewer });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ message: 'Operators can restart computes' });

    const restarted = await ask({ method: 'POST', path, as: operator });
    expect(restarted.status).toBe(200);
    const operationIds = (JSON.parse(restarted.body) as { operations: { id: string }[] }).operations.map((operation) => operation.id);
    expect(operationIds.length).toBeGreaterThan(0);

    expect((await ask({ path: '/audit', as: operator })).status).toBe(403);
    const trail = AuditPageSchema.parse(JSON.parse((await ask({ path: '/audit', as: admin })).body));
    expect(trail.rows.slice(0, 3)).toMatchObject([
      { email: operator.email, role: 'operator', action: 'Refused: Read the audit trail', status: 403 },
      { email: operator.email, role: 'operator', action: 'Restart compute', projectId, status: 200, operationIds },
      { email: viewer.email, role: 'viewer', action: 'Refused: Restart compute', projectId, status: 403, operationIds: [] },
    ]);
    const byPerson = AuditPageSchema.parse(JSON.parse((await ask({ path: `/audit?person=${encodeURIComponent('vera@')}`, as: admin })).body));
    expect(byPerson.rows.map((row) => row.email)).toEqual([viewer.email]);

    const starters = JSON.parse((await ask({ path: `/audit/starters?ids=${operationIds.join(',')},op-elsewhere`, as: viewer })).body) as {
      starters: Record<string, { name: string }>;
    };
    expect(Object.keys(starters.starters).sort()).toEqual([...operationIds].sort());

    const csv = await ask({ path: '/audit/export.csv?action=restart', as: admin });
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(3);
    const ndjson = await ask({ path: '/audit/export.ndjson', as: admin });
    expect(ndjson.body.trim().split('\n').length).toBeGreaterThanOrEqual(2);
    for (const text of [csv.body, ndjson.body, restarted.body]) expect(text).not.toContain(TEAM_KEY);
  });

  it('shows a person without a role only "No access"', async () => {
    const page = await ask({ path: '/', as: { email: 'nobody@example.com', groups: 'visitors' } });
    expect(page.status).toBe(403);
    expect(page.body).toContain('<h1>No access</h1>');
    expect(page.body).not.toContain('ops-console-data');
  });

  it('records a person without a role once per SESSION_HOURS, not once per request (each is its own sign-in)', async () => {
    const db = dbOf(server.running.store);
    const nobody = { email: 'norole@example.com', groups: 'visitors' };
    const refusals = async () => (await readAudit(db, { person: 'norole@example.com' })).rows.filter((row) => row.action === 'Sign-in refused: no role');
    expect((await ask({ path: '/', as: nobody })).status).toBe(403);
    await expect.poll(async () => (await refusals()).length).toBe(1);
    expect((await ask({ path: '/projects', as: nobody })).status).toBe(403);
    expect((await ask({ path: '/api/v2/projects', as: nobody })).status).toBe(403);
    expect((await ask({ method: 'POST', path: '/api/v2/projects', as: nobody })).status).toBe(403);
    expect(await refusals()).toEqual([expect.objectContaining({ email: 'norole@example.com', role: null, status: 403, target: 'console' })]);

    // The window is SESSION_HOURS (12 by default): the same person a window later is recorded again.
    const team = readTeamConfig({ SIGN_IN: 'proxy', TEAM_API_KEY: TEAM_KEY, ROLES: 'viewer=ops-readers' }) as TeamSettings;
    let now = Date.UTC(2026, 0, 1);
    const gate = createTeamGate(team, db, () => now);
    const person = { email: 'later@example.com', name: 'Later', role: null };
    const refusedLater = async () => (await readAudit(db, { person: 'later@example.com' })).rows.length;
    const seen = (at: number) => {
      now = at;
      const req = new http.IncomingMessage(new Socket());
      const session = { key: TEAM_KEY, kind: 'organization' as const, sid: 'proxy:later', remember: false, exp: at + 60_000, person };
      expect(gate.page(req, new http.ServerResponse(req), { state: 'open', secure: false, session })).toBe(true);
    };
    seen(now);
    await expect.poll(refusedLater).toBe(1);
    seen(now + 11 * 60 * 60 * 1000);
    seen(now + 1);
    seen(Date.UTC(2026, 0, 1) + 12 * 60 * 60 * 1000);
    await expect.poll(refusedLater).toBe(2);
  });

  it("has a change through the console's own routes in the audit trail by the time its answer arrives, with the status it answered", async () => {
    const db = dbOf(server.running.store);
    // A webhook without an address: refused by the route itself (400), a change attempted all the same.
    const answer = await ask({ method: 'POST', path: WEBHOOKS_PATH, as: admin });
    expect(answer.status).toBe(400);
    // Read at once, not waited for: the row was written before the answer went out.
    const rows = (await readAudit(db, { person: admin.email, action: 'Create webhook' })).rows;
    expect(rows).toEqual([expect.objectContaining({ email: admin.email, role: 'admin', action: 'Create webhook', status: 400 })]);
  });

  it('takes no key at the key screen', async () => {
    expect((await ask({ method: 'POST', path: '/session' })).status).toBe(403);
  });
});

describe('the route table in a team mode', () => {
  it('declares the role each route that needs a session asks for', () => {
    const routes = server.running.routing.rooms.flatMap((room) => room.routes);
    const withoutRole = routes.filter((route) => route.config.needs === 'session' && route.config.role === undefined).map((route) => route.url);
    expect(withoutRole).toEqual([]);
    expect(routes.filter((route) => route.config.needs === 'session').length).toBeGreaterThan(15);
  });
});

describe('the audit trail', () => {
  it('pages over the whole filtered trail, newest first, and writes CSV a spreadsheet reads as text', async () => {
    const db = dbOf(server.running.store);
    const person = { email: 'paging@example.com', name: '=Paging Person', role: 'admin' as const };
    for (let index = 0; index < 7; index += 1) {
      await recordAudit(
        db,
        { person, action: 'Delete webhook', target: `webhook w-${index}`, status: 204, projectId: index % 2 ? 'p-odd' : 'p-even' },
        new Date(Date.UTC(2026, 0, index + 1)),
      );
    }
    const filters = auditFiltersOf(new URLSearchParams('person=paging&from=2026-01-02&to=2026-01-06&nonsense=1'));
    expect(filters).toEqual({ person: 'paging', from: '2026-01-02', to: '2026-01-06' });
    const first = await readAudit(db, filters, undefined, 3);
    const second = await readAudit(db, filters, first.next ?? undefined, 3);
    expect([...first.rows, ...second.rows].map((row) => row.target)).toEqual(['webhook w-5', 'webhook w-4', 'webhook w-3', 'webhook w-2', 'webhook w-1']);
    expect(second.next).toBeNull();
    const odd = await readAudit(db, auditFiltersOf(new URLSearchParams('project=p-odd&person=paging')));
    expect(odd.rows.map((row) => row.target)).toEqual(['webhook w-5', 'webhook w-3', 'webhook w-1']);
    expect(auditCsvLine(odd.rows[0]!)).toContain(",'=Paging Person,");
  });
});
