import http from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Method } from '../../../server/http/route';
import { refusalsOf } from '../../../server/routes/refusals';
import { mountRoutes } from '../../../server/routes/router';
import { openRoute, type Route } from '../../../server/session/route-guard';
import { createSeal } from '../../../server/seal/seal';
import { createSessions } from '../../../server/session/sessions';
import { close, listen, rawRequest } from '../http-helpers';

// What the console keeps of its own routing around Fastify (server/routes/router.ts, docs/architecture.md "How a
// request finds its route"), on a few rooms of its own whose handlers say what they were given: the path matched
// and handed over as sent, the 405s Fastify does not make, and bodies and odd requests left to the routes.

/** A route that answers its template, its parameters and the target it was handed. */
const echo = (method: Method | readonly Method[], url: string): Route =>
  openRoute({
    method,
    url,
    config: { needs: 'none' },
    handler: ({ req, res, params, route }) => Promise.resolve(void res.end(JSON.stringify({ route, params, url: req.url }))),
  });

const ROOMS = [
  { name: 'api', routes: [echo(['GET', 'POST'], '/api/*')] },
  { name: 'archive', routes: [echo('GET', '/archive/*'), echo('DELETE', '/archive/sources/:sourceId')] },
  { name: 'projects', routes: [echo('GET', '/projects/:projectId'), echo('POST', '/projects/new')] },
  { name: 'pages', routes: [echo(['GET', 'HEAD'], '/*')] },
];

let server: http.Server;
let port: number;
beforeAll(async () => {
  server = http.createServer();
  await mountRoutes(server, { rooms: ROOMS, sessions: createSessions({ seal: createSeal(undefined) }), withCsp: false, log: () => undefined });
  port = await listen(server);
});
afterAll(() => close(server));

const ask = async (method: string, path: string, headers: Record<string, string> = {}) => {
  const answer = await rawRequest(port, { method, path, headers });
  return { status: answer.status, allow: answer.headers.allow, body: answer.status === 200 ? (JSON.parse(answer.body) as unknown) : undefined };
};

describe('routing with Fastify', () => {
  it('matches the path as sent, and hands the parameters and the target over as sent', async () => {
    expect(await ask('GET', '/%61pi/x')).toMatchObject({ status: 200, body: { route: '/*', url: '/%61pi/x' } });
    expect(await ask('GET', '/projects/%E0%A4%A?x=%25')).toMatchObject({
      status: 200,
      body: { route: '/projects/:projectId', params: { projectId: '%E0%A4%A' }, url: '/projects/%E0%A4%A?x=%25' },
    });
    expect(await ask('GET', '/projects/p-1/')).toMatchObject({ body: { route: '/*' } });
    expect(await ask('GET', '/Projects/p-1')).toMatchObject({ body: { route: '/*' } });
  });

  it('answers a method a path is not declared with 405, a subtree hiding no template of another method', async () => {
    expect(await ask('GET', '/archive/sources/s-1')).toMatchObject({ status: 405, allow: 'DELETE' });
    expect(await ask('DELETE', '/archive/other')).toMatchObject({ status: 405, allow: 'GET' });
    expect(await ask('PUT', '/projects/p-1')).toMatchObject({ status: 405, allow: 'GET' });
    expect(await ask('PROPFIND', '/anything')).toMatchObject({ status: 405, allow: 'GET, HEAD' });
    expect(await ask('QUERY', '/api/x')).toMatchObject({ status: 405, allow: 'GET, POST' });
    // The method's own template takes every path the other's does: no 405 there.
    expect(await ask('GET', '/projects/new')).toMatchObject({ status: 200, body: { route: '/projects/:projectId' } });
  });

  it('leaves a body Fastify would refuse to its route', async () => {
    expect(await ask('POST', '/api/x', { 'content-type': 'not a type', 'content-length': '0' })).toMatchObject({ status: 200, body: { route: '/api/*' } });
  });

  it('routes a target that is not a path to the catch-all, handed over as sent', async () => {
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write('GET http://example.com/api/x HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n'));
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1.1 200/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ route: '/*', url: 'http://example.com/api/x' });
  });

  it('refuses each template only for the methods it lacks, and not where a method’s own template covers it', () => {
    const routes = ROOMS.flatMap((room) => room.routes);
    const refusals = refusalsOf(routes, ['GET', 'HEAD', 'POST', 'DELETE']);
    const of = (url: string) => refusals.find((refusal) => refusal.url === url);
    expect(of('/projects/new')).toMatchObject({ methods: ['HEAD', 'DELETE'], allowed: ['POST'] });
    expect(of('/archive/sources/:sourceId')).toMatchObject({ methods: ['GET', 'HEAD', 'POST'], allowed: ['DELETE'] });
    expect(of('/*')).toMatchObject({ methods: ['POST', 'DELETE'], allowed: ['GET', 'HEAD'] });
  });
});
