import { print } from 'graphql';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { routes } from '../src/transports/rest/routes.js';
import { clockAt, getJson, startTestServer, TEST_KEY } from './helpers/server.js';
import { everyDocumentedPath } from './helpers/paths.js';

/**
 * Generated from the route table: every REST path answers exactly what its GraphQL operation
 * answers over /graphql (shaped as the route shapes it), HEAD answers every GET path with its
 * headers and no body, and the rate-limit headers say both limits.
 */

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ privateDb: true, now: clockAt('2027-01-15T12:00:00Z') });
});
afterAll(async () => {
  await app?.close();
});

const gets = everyDocumentedPath().filter((p) => p.method === 'GET');
const templateOf = (path: string) =>
  routes.find((r) => (r.method ?? 'GET') === 'GET' && new RegExp(`^${r.path.replace(/:(\w+)/g, '[^/]+')}$`).test(path.split('?')[0]!))!;

/** The route's parameters as its REST shim reads them: path segments and the query string. */
function paramsOf(template: string, path: string): Record<string, unknown> {
  const [pathname, query] = path.split('?');
  const names = template.split('/');
  const values = pathname!.split('/');
  const raw: Record<string, unknown> = {};
  for (const [i, n] of names.entries()) if (n.startsWith(':')) raw[n.slice(1)] = decodeURIComponent(values[i]!);
  for (const [k, v] of new URLSearchParams(query ?? '')) raw[k] = v;
  return raw;
}

describe('REST and GraphQL agree on every route', () => {
  it.each(gets)('GET $path', async ({ path }) => {
    const route = templateOf(path);
    const params = (route.params as z.ZodType).parse(paramsOf(route.path, path)) as Record<string, unknown>;
    const variables = route.variables ? route.variables(params) : params;
    const rest = await getJson(app, path);
    expect(rest.status).toBe(200);
    const r = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: print(route.operation), variables }),
    });
    const body = (await r.json()) as { data?: unknown; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    // `health` carries the time of the answer; under the fixed clock both are the same instant.
    expect(JSON.parse(JSON.stringify(route.shape(body.data as never, params)))).toEqual(rest.body);
  });
});

describe('HEAD and the rate-limit headers', () => {
  it.each(gets)('HEAD $path: the headers of GET, no body', async ({ path }) => {
    const get = await fetch(app.url + path, { headers: { 'x-api-key': TEST_KEY } });
    await get.arrayBuffer();
    const head = await fetch(app.url + path, { method: 'HEAD', headers: { 'x-api-key': TEST_KEY } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const name of ['content-type', 'etag', 'cache-control']) expect(head.headers.get(name), name).toBe(get.headers.get(name));
  });

  it('RateLimit-Policy states the monthly quota and the per-second rate', async () => {
    const r = await getJson(app, '/api/states');
    expect(r.headers.get('ratelimit-policy')).toMatch(/^100000000;w=\d+, 1000000;w=1$/);
    const month = Number(/;w=(\d+),/.exec(r.headers.get('ratelimit-policy')!)![1]);
    // January has 31 days.
    expect(month).toBe(31 * 86_400);
    expect(Number(r.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(month);
  });
});
