import { http, HttpHandler, HttpResponse, type RequestHandler } from 'msw';
import { describe, expect, it } from 'vitest';
import { routeIndex } from '../../../server/proxy/simulator-fetch';
import { fakeClock } from '../../../sim/clock';
import { createControlPlane } from '../../../sim/control-plane';
import { createHandlers } from '../../../sim/handlers';

const handlers = createHandlers(createControlPlane({ clock: fakeClock(Date.parse('2026-03-02T09:00:00Z')) }));
const METHODS = ['GET', 'POST', 'DELETE', 'PATCH', 'PUT', 'HEAD', 'OPTIONS'];

/** Addresses a person's console, a script or a probe could send: every route's shape with ids filled in, and odd ones. */
function addresses(): string[] {
  const found = new Set<string>();
  for (const handler of handlers) {
    if (!(handler instanceof HttpHandler) || typeof handler.info.path !== 'string') continue;
    const path = handler.info.path.replace(/^\*/, '').replace(/:\w+/g, 'br-cool-77');
    found.add(path);
    found.add(`${path}/`);
    found.add(`${path}?cursor=abc&limit=10`);
  }
  for (const odd of [
    '/api/v2',
    '/api/v2/',
    '/api/v2/projects/a%2Fb/operations',
    '/API/V2/PROJECTS',
    '/api/v2/nowhere/at/all',
    '/api/v2/projects/p/branches/b/extra/deep',
  ])
    found.add(odd);
  return [...found];
}

async function matches(handler: RequestHandler, request: Request): Promise<boolean> {
  return handler.test({ request: request.clone() });
}

describe('the simulator route index', () => {
  it('never leaves out a route MSW would match, for any method and address, and keeps their order', async () => {
    const index = routeIndex(handlers);
    let pairs = 0;
    for (const method of METHODS) {
      for (const address of addresses()) {
        const url = new URL(address, 'http://localhost');
        const request = new Request(url, { method });
        const candidates = index.for(method, url.pathname);
        const matching: RequestHandler[] = [];
        for (const handler of handlers) if (await matches(handler, request)) matching.push(handler);
        for (const handler of matching) expect(candidates, `${method} ${address}`).toContain(handler);
        // In the handlers' own order: the first that matches answers, as with every handler tried.
        expect(candidates).toEqual(handlers.filter((handler) => candidates.includes(handler)));
        pairs += matching.length;
      }
    }
    expect(pairs).toBeGreaterThan(100);
  });

  it('hands MSW only the routes a request could be for: the route itself and the catch-all', () => {
    const index = routeIndex(handlers);
    const forOperations = index.for('GET', '/api/v2/projects/p-1/operations');
    expect(forOperations.length).toBeLessThanOrEqual(3);
    expect(forOperations.length).toBeLessThan(handlers.length / 5);
    expect(index.for('POST', '/api/v2/projects/p-1/endpoints/ep-1/restart').length).toBeLessThanOrEqual(3);
  });

  it('tries every handler whose route it cannot read (a predicate, a pattern of groups)', () => {
    const custom = [
      http.get(
        ({ request }) => new URL(request.url).pathname.endsWith('/x'),
        () => HttpResponse.json({}),
      ),
      http.get('/a/:id(\\d+)', () => HttpResponse.json({})),
      http.get(/\/regexp$/, () => HttpResponse.json({})),
    ];
    expect(routeIndex(custom).for('GET', '/anything')).toHaveLength(3);
  });
});
