// The console's route table mounted in Fastify 5, unchanged: each declaration becomes a Fastify route (its method,
// url and config as they are), Fastify's own find-my-way matches, and the handler takes Node's request and response
// (reply.hijack()) into the same hooks and handler the console's pipeline runs (server/routes/pipeline.ts). A
// catch-all content-type parser leaves every body stream alone: the routes read their own bodies.
import type http from 'node:http';
import fastify from 'fastify';
import { methodsOf, type RouteConfig } from '../server/http/route';
import { createRouteDispatch, type RoutesOptions } from '../server/routes/pipeline';
import { CATCH_ALL, createRouteTable } from '../server/routes/table';

/** Takes `server` over (an http.Server already listening) with Fastify routing the same table; resolves once Fastify is ready. */
export async function mountInFastify(server: http.Server, options: RoutesOptions): Promise<void> {
  const dispatch = createRouteDispatch(options);
  // What Fastify does not route (another method, an odd path) goes by the table's own answer: 405, or the pages' catch-all.
  const table = createRouteTable(options.routes);
  const app = fastify({
    serverFactory: (handler) => {
      server.removeAllListeners('request');
      server.on('request', handler);
      return server;
    },
    routerOptions: { maxParamLength: 64 * 1024, ignoreTrailingSlash: false },
    exposeHeadRoutes: false,
    logger: false,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(null);
  });
  for (const route of options.routes) {
    if (route.url === CATCH_ALL) continue;
    const config: RouteConfig = route.config;
    app.route<{ Params: Record<string, string> }, RouteConfig>({
      method: [...methodsOf(route)],
      url: route.url,
      config,
      handler: (request, reply) => {
        reply.hijack();
        dispatch(request.raw, reply.raw, { kind: 'route', route, template: route.url, params: request.params });
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    reply.hijack();
    dispatch(request.raw, reply.raw, table.match(request.raw.method ?? 'GET', (request.raw.url ?? '/').split('?')[0] ?? '/'));
  });
  await app.ready();
}
