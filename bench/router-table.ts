// The bench's baseline for `npm run bench -- --only=router` (bench/router.ts): the same declarations routed by a
// bare find-my-way router (the router inside Fastify) with no Fastify around it, into the same hooks the server
// runs (server/routes/pipeline.ts). This is the console's own route table as it served before Fastify did
// (docs/architecture.md, "Fastify or not, measured"), kept here only: the server routes with Fastify
// (server/routes/router.ts). Matched on the path as sent; 405 for a path declared only under other methods;
// anything else the pages' catch-all.
import type http from 'node:http';
import findMyWay from 'find-my-way';
import { pathOf } from '../server/http/paths';
import { ALL_METHODS, methodsOf, type Method } from '../server/http/route';
import { createRouteDispatch, type Match, type RoutesOptions } from '../server/routes/pipeline';
import { CATCH_ALL } from '../server/routes/router';
import type { Route } from '../server/session/route-guard';

interface RouteTable {
  match: (method: string, path: string) => Match;
  routes: readonly Route[];
}

interface Found {
  route: Route;
  template: string;
  params: Record<string, string | undefined>;
}

/** Literal text before a template's first parameter or wildcard: the longer, the more specific. */
const literalLength = (template: string) => template.search(/[:*]|$/);
const isSubtree = (template: string) => template.endsWith('*');

/** Whether `a` names a path more precisely than `b` (any template over a subtree; a longer subtree over a shorter one). */
function moreSpecific(a: Found, b: Found | undefined): boolean {
  if (!b) return true;
  if (isSubtree(a.template) !== isSubtree(b.template)) return !isSubtree(a.template);
  return literalLength(a.template) > literalLength(b.template);
}

/** find-my-way decodes what it matches: `%` and `#` are handed over escaped, so the path is matched (and its parameters given) as sent. */
const asSent = (path: string) => (/[%#]/.test(path) ? path.replace(/[%#]/g, (c) => (c === '%' ? '%25' : '%23')) : path);

function createRouteTable(routes: readonly Route[]): RouteTable {
  const router = findMyWay({
    // Ids as long as the request line allows: a parameter past find-my-way's default (100) would not match at all.
    maxParamLength: 64 * 1024,
    // `/projects/p-1/` is not `/projects/p-1`, as before the table.
    ignoreTrailingSlash: false,
    caseSensitive: true,
  });
  const methods = new Set<Method>();
  let catchAll: Route | undefined;
  for (const route of routes) {
    for (const method of methodsOf(route)) methods.add(method);
    router.on(methodsOf(route) as Method[], route.url, () => undefined, route);
    if (route.url === CATCH_ALL) catchAll = route;
  }
  if (!catchAll) throw new Error(`The route table needs a catch-all (${CATCH_ALL}) for the paths no room declares.`);
  const fallback = catchAll;
  // A subtree no other declaration lies under (`/api/v2/*`): what it matched is final, no other method is asked.
  const alone = new Set(
    routes.filter((r) => isSubtree(r.url) && !routes.some((other) => other.url !== r.url && other.url.startsWith(r.url.slice(0, -1)))).map((r) => r.url),
  );

  const find = (method: string, key: string): Found | undefined => {
    const found = router.find(method as Method, key);
    if (!found) return undefined;
    const route = found.store as Route;
    return { route, template: route.url, params: found.params };
  };

  return {
    routes,
    match(method, path) {
      // Not a path (an absolute-form target, `*`): nothing the rooms declare.
      const key = path.startsWith('/') ? asSent(path) : CATCH_ALL;
      const own = find(method, key);
      if (own && (!isSubtree(own.template) || alone.has(own.template))) return { kind: 'route', ...own };
      // A subtree (or nothing) for this method: a template declared for other methods may name the path more precisely.
      let best: Found | undefined;
      const allowed: Method[] = [];
      for (const other of ALL_METHODS) {
        if (other === method || !methods.has(other)) continue;
        const found = find(other, key);
        if (!found || !moreSpecific(found, own)) continue;
        if (moreSpecific(found, best)) {
          best = found;
          allowed.length = 0;
        }
        if (best && found.template === best.template) allowed.push(other);
      }
      if (best) return { kind: 'method-not-allowed', route: best.route, template: best.template, allowed };
      return own ? { kind: 'route', ...own } : { kind: 'route', route: fallback, template: CATCH_ALL, params: {} };
    },
  };
}

/** Takes `server`'s requests over with the bare table routing the same rooms, in place of Fastify's listener (the last added: compose.ts mounts it last, after the drain's). */
export function mountBareTable(server: http.Server, options: RoutesOptions): void {
  const table = createRouteTable(options.rooms.flatMap((room) => room.routes));
  const dispatch = createRouteDispatch(options);
  const fastify = server.listeners('request').at(-1);
  if (fastify) server.off('request', fastify as (...args: unknown[]) => void);
  server.on('request', (req, res) => dispatch(req, res, table.match(req.method ?? 'GET', pathOf(req))));
}
