import { describe, expect, it } from 'vitest';
import { createRouteTable } from '../../src/transports/rest/route-table.js';
import { routes } from '../../src/transports/rest/routes.js';
import type { RestRoute } from '../../src/transports/rest/route.js';

/**
 * The REST route table (transports/rest/route-table.ts) over the real routes, mounted in each test:
 * which route a path finds and the values of its `:name` segments, the methods each answers (a GET
 * route HEAD too) and its Allow header, and a list's CSV columns and list parameters.
 */

const byPath = (path: string): RestRoute => routes.find((r) => r.path === path)!;

/** A path of the route with each `:name` segment given the value `v-name`. */
const concrete = (path: string) => path.replace(/:(\w+)/g, 'v-$1');

describe('matching a path', () => {
  it('every documented path finds its own route, its segments and each `:name` value in order', () => {
    const table = createRouteTable(routes);
    for (const route of routes) {
      const found = table.match(concrete(route.path));
      expect(found?.mounted.route, route.path).toBe(route);
      expect(found!.mounted.segments, route.path).toEqual(route.path.split('/').slice(1));
      expect(found!.pathParams, route.path).toEqual([...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name, `v-${name}`]));
    }
  });

  it('two values in one path, as sent (not decoded); a literal segment is matched exactly', () => {
    const table = createRouteTable(routes);
    const distance = table.match('/api/zip/90210/distance/10%2001');
    expect([distance?.mounted.route.path, distance?.pathParams]).toEqual([
      '/api/zip/:from/distance/:to',
      [
        ['from', '90210'],
        ['to', '10%2001'],
      ],
    ]);
    expect(table.match('/api/zip/90210/nearby')?.mounted.route.path).toBe('/api/zip/:zip/nearby');
    expect(table.match('/api/resorts/vail/trails')?.mounted.route.path).toBe('/api/resorts/:id/trails');
    expect(table.match('/api/zips/near')?.mounted.route.path).toBe('/api/zips/near');
  });

  it('a path of no route finds nothing: unknown segments, one too many or too few, a literal that differs', () => {
    const table = createRouteTable(routes);
    for (const path of [
      '/',
      '',
      '/api',
      '/api/nothing',
      '/api/zip',
      '/api/zip/90210/elsewhere',
      '/api/zip/90210/distance/10001/more',
      '/api/zips/far',
      '/healthz',
      '/api/zip/90210/distance',
    ]) {
      expect(table.match(path), path).toBeNull();
    }
  });

  it('a table of no routes finds nothing', () => {
    expect(createRouteTable([]).match('/health')).toBeNull();
  });
});

describe('what each route answers', () => {
  it('a GET route answers GET and HEAD; a POST route POST only; the Allow header names them', () => {
    const table = createRouteTable(routes);
    const zip = table.match('/api/zip/90210')!.mounted;
    expect([zip.allow, [...zip.methods]]).toEqual(['GET, HEAD', ['GET', 'HEAD']]);
    const run = table.match('/api/sync/run')!.mounted;
    expect([run.allow, [...run.methods]]).toEqual(['POST', ['POST']]);
    for (const route of routes) {
      const mounted = table.match(concrete(route.path))!.mounted;
      expect(mounted.allow, route.path).toBe(route.method === 'POST' ? 'POST' : 'GET, HEAD');
    }
  });

  it("a list's columns are its documented item's fields, nested ones flattened; a route that is no list has none", () => {
    const table = createRouteTable(routes);
    const nearby = table.match('/api/zip/90210/nearby')!.mounted;
    expect(nearby.columns?.map((c) => c.name)).toEqual(['zip', 'city', 'stateCode', 'county', 'lat', 'lng', 'distanceMiles']);
    expect(nearby.columns?.[0]).toEqual({ name: 'zip', path: ['zip'] });
    expect(table.match('/api/zip/90210')!.mounted.columns).toBeNull();
    const lists = routes.filter((r) => r.list).map((r) => r.path);
    expect(lists.sort()).toEqual(['/api/city/:city', '/api/resorts', '/api/states/:state/zipcodes', '/api/zip/:zip/nearby', '/api/zips', '/api/zips/near']);
    for (const path of lists) expect(table.match(concrete(path))!.mounted.columns?.length, path).toBeGreaterThan(3);
  });

  it('the list parameters of a route (read as comma-separated items) and only those', () => {
    const table = createRouteTable(routes);
    expect([...table.match('/api/zips')!.mounted.lists]).toEqual(['codes']);
    expect([...table.match('/api/zip/90210/nearby')!.mounted.lists]).toEqual([]);
  });

  it('a list route whose documented body has no such list is refused when the table is built, naming the route', () => {
    const bad = { ...byPath('/api/zip/:zip/nearby'), list: 'rows' };
    expect(() => createRouteTable([bad])).toThrow('/api/zip/:zip/nearby: its documented body has no list "rows"');
  });
});
