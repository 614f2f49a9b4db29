import type { z } from 'zod';
import { isList } from '../../validation/params.js';
import type { RestRoute } from './route.js';
import { type Column, columnsOf } from './list-formats.js';

/** A route as the router finds it: its path's segments, the methods it answers, its list's parts. */
export interface MountedRoute {
  route: RestRoute;
  segments: string[];
  /** The Allow header of a 405: the methods it answers. */
  allow: string;
  methods: ReadonlySet<string>;
  /** A list's CSV columns (from its documented item), when the route is a list. */
  columns: Column[] | null;
  /** Its list parameters: given repeated, their values are joined by commas (the documented form). */
  lists: ReadonlySet<string>;
}

/** A path's route and the values of its `:name` segments, as sent (not yet decoded). */
export interface RouteMatch {
  mounted: MountedRoute;
  pathParams: [string, string][];
}

/**
 * The route table: each route mounted once, at start-up, by the number of its path's segments; a
 * path is matched segment by segment (a `:name` segment takes any value). A GET route answers HEAD too.
 */
export function createRouteTable(routes: readonly RestRoute[]): { match(path: string): RouteMatch | null } {
  const bySegmentCount = new Map<number, MountedRoute[]>();
  for (const route of routes) {
    const segments = route.path.split('/').slice(1);
    const method = route.method ?? 'GET';
    const list = bySegmentCount.get(segments.length) ?? [];
    const methods = method === 'GET' ? ['GET', 'HEAD'] : [method];
    const shape = (route.params as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
    const lists = new Set(Object.keys(shape).filter((name) => isList(shape[name]!)));
    list.push({ route, segments, allow: methods.join(', '), methods: new Set(methods), columns: route.list ? columnsOf(itemOf(route)) : null, lists });
    bySegmentCount.set(segments.length, list);
  }

  function match(path: string): RouteMatch | null {
    const parts = path.split('/');
    const candidates = bySegmentCount.get(parts.length - 1);
    if (!candidates) return null;
    for (const c of candidates) {
      const pathParams: [string, string][] = [];
      let ok = true;
      for (let i = 0; i < c.segments.length && ok; i++) {
        const seg = c.segments[i]!;
        if (seg.charCodeAt(0) === 58 /* : */) pathParams.push([seg.slice(1), parts[i + 1]!]);
        else ok = seg === parts[i + 1];
      }
      if (ok) return { mounted: c, pathParams };
    }
    return null;
  }

  return { match };
}

/** The documented schema of a list route's items. */
function itemOf(route: RestRoute): z.ZodType {
  const list = (route.response as unknown as z.ZodObject).shape[route.list!] as z.ZodArray<z.ZodType> | undefined;
  if (!list?.element) throw new Error(`${route.path}: its documented body has no list "${route.list}"`);
  return list.element;
}
