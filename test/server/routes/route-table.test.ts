import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_METHODS, methodsOf, type Method } from '../../../server/http/route';
import type { Route } from '../../../server/session/route-guard';
import { removeTestClientDir, startTestServer, type TestServer } from '../start-test-server';

// The routes in Fastify (server/routes/router.ts), walked whole: every route the rooms declare is asked for once on a
// real socket, and /metrics then counts it under its own template (never a subtree's such as /archive/*, never the
// pages' /*) and its log line names that template; every path asked with a method it is not declared with gets
// 405 with the methods it is declared with in Allow.

const TOKEN = 'route-table-metrics-token-0123456789';
const KEY = 'route-table-test-key-00000000000000';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: TOKEN, SIM_API_KEY: KEY, SIM_FAULTS: '1' });
}, 60_000);
afterAll(async () => {
  await server.stop();
  await removeTestClientDir();
});

/** A path the template matches: each parameter and subtree filled in. */
const pathOf = (template: string) => template.replace(/:[A-Za-z]+/g, 'walk-1').replace(/\*$/, 'walk');

/** The method a route is walked with: GET where it takes GET (a read changes nothing), else its first. */
const methodFor = (route: Route): Method => (methodsOf(route).includes('GET') ? 'GET' : (methodsOf(route)[0] ?? 'GET'));

/** Every method a template is declared with, in the table's order. */
function declared(routes: readonly Route[], template: string): Method[] {
  const methods = new Set(routes.filter((route) => route.url === template).flatMap((route) => methodsOf(route)));
  return ALL_METHODS.filter((method) => methods.has(method));
}

function sample(text: string, series: string): number {
  return text
    .split('\n')
    .filter((row) => row.startsWith(series))
    .reduce((sum, row) => sum + Number(row.slice(row.lastIndexOf(' ') + 1)), 0);
}

const scrape = async () => (await server.request({ path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;

describe('the routes in Fastify', () => {
  it('counts every declared route under its own template, in /metrics and in its log line', async () => {
    const routes = server.running.routing.rooms.flatMap((room) => room.routes);
    expect(routes.length).toBeGreaterThan(30);
    const walked: { template: string; method: Method; id: string; quiet: boolean }[] = [];
    for (const [index, route] of routes.entries()) {
      const method = methodFor(route);
      const id = `walk-${index}`;
      const body = method === 'GET' || method === 'HEAD' ? undefined : '';
      const headers = { 'x-request-id': id, accept: 'application/json', ...(route.url === '/metrics' ? { authorization: `Bearer ${TOKEN}` } : {}) };
      const answer = await server.request({ method, path: pathOf(route.url), headers, body });
      expect(answer.status, `${method} ${route.url}`).not.toBe(405);
      walked.push({ template: route.url, method, id, quiet: route.config.quiet === true });
    }
    // Each walked (template, method) at least once under its own label: answered requests are counted once they close.
    await expect
      .poll(async () => {
        const text = await scrape();
        return walked.filter(({ template, method }) => sample(text, `http_request_duration_seconds_count{route="${template}",method="${method}"`) < 1);
      })
      .toEqual([]);
    for (const { template, id, quiet } of walked) {
      if (quiet) continue;
      const line = server.lines.find((entry) => entry.event === 'request' && entry.request_id === id);
      expect(line, template).toMatchObject({ route: template });
    }
  }, 60_000);

  it('answers a method a path is not declared with 405, naming the declared ones in Allow', async () => {
    const routes = server.running.routing.rooms.flatMap((room) => room.routes);
    const templates = [...new Set(routes.map((route) => route.url))];
    let refused = 0;
    for (const template of templates) {
      const methods = declared(routes, template);
      const wrong = (['POST', 'PUT', 'DELETE', 'PATCH', 'GET'] as const).find((method) => !methods.includes(method));
      if (!wrong) continue;
      const answer = await server.request({ method: wrong, path: pathOf(template), headers: { accept: 'application/json' }, body: '' });
      expect([answer.status, answer.headers.allow], `${wrong} ${template}`).toEqual([405, methods.join(', ')]);
      refused++;
    }
    expect(refused).toBeGreaterThan(20);
  }, 60_000);

  it('labels a request by the declaration it matched, not by a subtree it lies in', async () => {
    await server.request({ path: '/archive/insights?window=7d', headers: { 'x-request-id': 'label-insights' } });
    await server.request({
      method: 'POST',
      path: '/notifications/webhooks/w-1/deliveries/e-1/redeliver',
      headers: { 'x-request-id': 'label-redeliver' },
      body: '',
    });
    await server.request({ path: '/settings/nothing-here', headers: { 'x-request-id': 'label-unknown', accept: 'text/html' } });
    const routeOf = (id: string) => server.lines.find((line) => line.event === 'request' && line.request_id === id)?.route;
    await expect.poll(() => routeOf('label-insights')).toBe('/archive/insights');
    expect(routeOf('label-redeliver')).toBe('/notifications/webhooks/:webhookId/deliveries/:eventId/redeliver');
    expect(routeOf('label-unknown')).toBe('/*');
  });

  it('keeps an id as it came: a long one reaches its route, a double-encoded one is not decoded twice', async () => {
    const long = `p-${'x'.repeat(400)}`;
    await server.request({ path: `/projects/${long}`, headers: { 'x-request-id': 'long-id', accept: 'text/html' } });
    const encoded = await server.request({
      path: '/%61pi/v2/projects',
      headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'encoded', accept: 'text/html' },
    });
    const routeOf = (id: string) => server.lines.find((line) => line.event === 'request' && line.request_id === id)?.route;
    await expect.poll(() => routeOf('long-id')).toBe('/projects/:projectId');
    // `%61pi` is not `api`: a page, never a call forwarded to the API.
    expect(encoded.headers['content-type']).toMatch(/text\/html/);
    await expect.poll(() => routeOf('encoded')).toBe('/*');
  });
});
