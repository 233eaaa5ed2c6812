// The server's router: Fastify 5 (docs/architecture.md, "How a request finds its route"). Each room's
// declarations are a Fastify plugin of their own, registered as the room declared them (method, url, config);
// every route's handler is the same one: it takes Node's request and response over (reply.hijack()) into the
// hooks every route shares (server/routes/pipeline.ts), which answer on them. What Fastify does not do itself,
// and the console keeps: the path is matched as it was sent (find-my-way decodes escapes before matching, so a
// `%` and a `#` are handed to it escaped, and the handlers see the address as sent), and a method a path is not
// declared with is a 405 (server/routes/refusals.ts). Bodies are left unread for the handlers: a catch-all
// content-type parser that reads nothing, and a request Fastify would refuse before its handler (a Content-Type
// it cannot parse, a QUERY without one) goes to its route all the same. Fastify takes the server it is given
// (serverFactory): start-up, drain and the cluster's workers stay as they are, and it is ready before it listens.
import http from 'node:http';
import fastify, { type FastifyInstance, type FastifyPluginCallback, type FastifyReply, type FastifyRequest } from 'fastify';
import { ALL_METHODS, methodsOf, type RouteConfig } from '../http/route';
import type { Route } from '../session/route-guard';
import { createRouteDispatch, type Match, type RoutesOptions } from './pipeline';
import { refusalsOf } from './refusals';

/** The pages' catch-all: a path no room declares. */
export const CATCH_ALL = '/*';

/** What each Fastify route carries in its config beside the declaration's: the request's match, from Fastify's parameters. */
interface Carried {
  match: (params: Record<string, string | undefined>) => Match;
}

/** find-my-way decodes what it matches: `%` and `#` are handed over escaped, so the path is matched (and its parameters given) as sent. */
const escaped = (path: string) => (/[%#]/.test(path) ? path.replace(/[%#]/g, (c) => (c === '%' ? '%25' : '%23')) : path);

/** The target Fastify routes: the path escaped, the query as it is; not a path (an absolute-form target, `*`): the catch-all. */
export function routedUrl(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!path.startsWith('/')) return CATCH_ALL;
  return query < 0 ? escaped(path) : `${escaped(path)}${url.slice(query)}`;
}

/** Methods Node parses that Fastify does not route by default (WebDAV's, LINK, PURGE…): routed too, so each gets its 405. CONNECT never reaches a route. */
const otherMethods = (app: FastifyInstance) => http.METHODS.filter((method) => method !== 'CONNECT' && !app.supportedMethods.includes(method));

/** A plugin under the room's name (Fastify's plugin tree and its errors say it). */
function named(name: string, plugin: FastifyPluginCallback): FastifyPluginCallback {
  return Object.assign(plugin, { [Symbol.for('fastify.display-name')]: name });
}

/** Mounts every room's routes on `server` with Fastify (which takes its requests over); resolves once Fastify is ready. */
export async function mountRoutes(server: http.Server, options: RoutesOptions): Promise<FastifyInstance> {
  const routes = options.rooms.flatMap((room) => room.routes);
  const catchAll = routes.find((route) => route.url === CATCH_ALL);
  if (!catchAll) throw new Error(`The routes need a catch-all (${CATCH_ALL}) for the paths no room declares.`);
  const dispatch = createRouteDispatch(options);
  const clientErrorListeners = server.listeners('clientError');
  const app = fastify({
    serverFactory: (handler) => server.on('request', handler),
    routerOptions: {
      // Ids as long as the request line allows: a parameter past find-my-way's default (100) would not match at all.
      maxParamLength: 64 * 1024,
      // `/projects/p-1/` is not `/projects/p-1`.
      ignoreTrailingSlash: false,
      caseSensitive: true,
    },
    rewriteUrl: (req) => routedUrl(req.url ?? '/'),
    exposeHeadRoutes: false,
    return503OnClosing: false,
    logger: false,
  });
  // Node's own answer to a request it cannot parse (400, 408, 431, nothing else), not Fastify's JSON one.
  for (const listener of server.listeners('clientError')) {
    if (!clientErrorListeners.includes(listener)) server.off('clientError', listener as (...args: unknown[]) => void);
  }
  for (const method of otherMethods(app)) app.addHttpMethod(method, { hasBody: true });

  // The route's handler: Node's request back as it was sent (the API proxy forwards its target), then the hooks and the declaration.
  const answer = (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    request.raw.url = request.originalUrl;
    const carried = request.routeOptions.config as Partial<Carried>;
    const params = request.params as Record<string, string | undefined> | undefined;
    const match: Match = carried.match ? carried.match(params ?? {}) : { kind: 'route', route: catchAll, template: CATCH_ALL, params: {} };
    dispatch(request.raw, reply.raw, match);
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(null);
  });
  // Fastify's own refusals before the handler (415, a QUERY's 400): the route answers, as it would any body.
  app.setErrorHandler((_error, request, reply) => {
    if (reply.sent) return;
    // Fastify set its status on Node's response already: the route's answer starts from Node's default.
    reply.raw.statusCode = 200;
    answer(request, reply);
  });
  // Every method has a route or a refusal for every path (the catch-all's), so this is only what find-my-way cannot look up.
  app.setNotFoundHandler((request, reply) => answer(request, reply));

  const declare = (instance: FastifyInstance, route: Route) => {
    const config: RouteConfig & Carried = {
      ...route.config,
      match: (params) => ({ kind: 'route', route, template: route.url, params }),
    };
    instance.route({ method: [...methodsOf(route)], url: route.url, config, handler: answer });
  };
  for (const room of options.rooms) {
    app.register(
      named(room.name, (instance, _options, done) => {
        for (const route of room.routes) declare(instance, route);
        done();
      }),
    );
  }
  // The 405s: each template refused for the methods it is not declared with, Fastify's router choosing as for any route.
  const methods = [...new Set([...ALL_METHODS, ...app.supportedMethods])];
  app.register(
    named('405', (instance, _options, done) => {
      for (const refusal of refusalsOf(routes, methods)) {
        const { route, url, allowed } = refusal;
        const config: RouteConfig & Carried = {
          ...route.config,
          match: () => ({ kind: 'method-not-allowed', route, template: url, allowed }),
        };
        instance.route({ method: [...refusal.methods], url, config, handler: answer });
      }
      done();
    }),
  );
  await app.ready();
  return app;
}
