// The one piece of routing Fastify does not do itself: the 405. Fastify answers a method a path is not declared
// with as "not found"; the console answers 405 with the methods the path is declared with in Allow. So for each
// template, and each method it is not declared with, this computes a refusal: one more route for Fastify's own
// router to match, whose answer is that 405 (docs/architecture.md, "How a request finds its route"). Fastify's
// router then decides which declaration a path is, for every method: a subtree such as `/archive/*` declared for
// GET does not hide `/archive/sources/:sourceId` declared for DELETE, since a GET there matches the more specific
// refusal. A refusal is left out where a template the method is declared with already takes every path the
// refused template takes (GET `/projects/:projectId` over POST `/projects/new`): the method's own route answers.
import { ALL_METHODS, methodsOf, type Method } from '../http/route';
import type { Route } from '../session/route-guard';

export interface Refusal {
  /** The methods refused here (those the template is not declared with). */
  methods: readonly string[];
  url: string;
  /** The methods the template is declared with, in ALL_METHODS' order: the 405's Allow. */
  allowed: readonly Method[];
  /** One of the template's declarations: its config says where the 405 is answered (a page's goes by the assets first). */
  route: Route;
}

const isSubtree = (template: string) => template.endsWith('*');

/** Whether every path `inner` matches, `outer` (a template without a subtree) matches too. */
function covers(outer: string, inner: string): boolean {
  if (isSubtree(outer) || isSubtree(inner)) return false;
  const outerParts = outer.split('/');
  const innerParts = inner.split('/');
  if (outerParts.length !== innerParts.length) return false;
  return outerParts.every((part, index) => {
    const other = innerParts[index] ?? '';
    if (part === other) return true;
    // A whole segment's parameter takes any segment but an empty one.
    return part.startsWith(':') && !part.slice(1).includes(':') && other !== '';
  });
}

/** Every refusal the declarations need, for each of `methods` (every method the router takes) a template is not declared with. */
export function refusalsOf(routes: readonly Route[], methods: readonly string[]): Refusal[] {
  const byTemplate = new Map<string, { declared: Set<Method>; route: Route }>();
  for (const route of routes) {
    const entry = byTemplate.get(route.url) ?? { declared: new Set<Method>(), route };
    for (const method of methodsOf(route)) entry.declared.add(method);
    byTemplate.set(route.url, entry);
  }
  const ownTemplates = (method: string) => [...byTemplate].filter(([, { declared }]) => (declared as Set<string>).has(method)).map(([url]) => url);
  const own = new Map(methods.map((method) => [method, ownTemplates(method)]));
  const refusals: Refusal[] = [];
  for (const [url, { declared, route }] of byTemplate) {
    const refused = methods.filter((method) => !(declared as Set<string>).has(method) && !(own.get(method) ?? []).some((template) => covers(template, url)));
    if (refused.length === 0) continue;
    refusals.push({ methods: refused, url, allowed: ALL_METHODS.filter((method) => declared.has(method)), route });
  }
  return refusals;
}
