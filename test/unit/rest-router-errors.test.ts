import { GraphQLError, parse } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRestRouter } from '../../src/transports/rest/router.js';
import type { RestRoute } from '../../src/transports/rest/route.js';
import { makeWorld, type World } from './pipeline-world.js';
import { ask, closeServers, serving } from './serving.js';

/**
 * What the REST router answers when something fails that is not a client's mistake: a route of the
 * test's own, mounted over the real pipeline and schema, whose shaping or data fails. Each is a 500
 * problem that says nothing of the cause, logged once where it happened.
 */

let world: World | undefined;
afterEach(() => {
  closeServers();
  world?.close();
  world = undefined;
});

/** The ZIP lookup's operation (or another) at /api/zip/:zip, shaped by `shape`. */
function zipRoute(shape: RestRoute['shape'], operation = 'query ($zip: String!) { zip(zip: $zip) { city } }'): RestRoute {
  return {
    path: '/api/zip/:zip',
    params: z.object({ zip: z.string() }),
    operation: parse(operation),
    response: z.unknown(),
    shape,
    freshness: 'static',
    summary: 'a route of the test’s own',
  };
}

/** The key's quota headers, as the dispatcher sets them before any route runs. */
const QUOTA_HEADERS = ['ratelimit-limit', '10000', 'ratelimit-remaining', '9999', 'ratelimit-reset', '86400'];

/**
 * A server whose every request goes to a router of this one route (its requests a key's, at 1
 * request/s: a 20,000-unit budget); its problem, headers and the log lines.
 */
async function mount(route: RestRoute) {
  const w = (world = makeWorld('gateway-rest-errors-'));
  const router = createRestRouter({
    routes: [route],
    pipeline: w.pipeline,
    cache: w.cache,
    makeContext: () => w.context({ keyId: 5, keyRate: 1 }),
    versionOf: () => 'v1',
    cacheControlOf: () => 'no-cache',
  });
  const url = await serving(async (ex) => {
    ex.headers.push(...QUOTA_HEADERS);
    if (!(await router.handle(ex))) ex.send(404, 'text/plain', 'no route');
  });
  return async (path: string) => {
    const res = await ask(url + path);
    const headers = ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'allow'].map((h) => res.headers.get(h));
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      headers,
      body: (await res.json()) as Record<string, unknown>,
      log: w.lines.map((l) => l.msg),
    };
  };
}

const INTERNAL = { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };

describe('a failure that is not the client’s', () => {
  it('shaping that throws: 500, its message kept from the client, logged by the router with the path', async () => {
    const get = await mount(
      zipRoute(() => {
        throw new Error('a secret the client must not read');
      }),
    );
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.type]).toEqual([500, 'application/problem+json; charset=utf-8']);
    expect(answer.body).toMatchObject(INTERNAL);
    expect(JSON.stringify(answer.body)).not.toContain('secret');
    expect(answer.log).toEqual(['unexpected error in a REST route']);
    expect(world!.lines[0]).toMatchObject({ path: '/api/zip/90210', err: { message: 'a secret the client must not read' } });
  });

  it('a failure before the operation runs (its variables): 500, logged by the router with a context made for it', async () => {
    const get = await mount({
      ...zipRoute((data) => data),
      variables: () => {
        throw new Error('variables that cannot be made');
      },
    });
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.type, answer.body]).toEqual([500, 'application/problem+json; charset=utf-8', expect.objectContaining(INTERNAL)]);
    expect(answer.log).toEqual(['unexpected error in a REST route']);
    expect(world!.lines[0]).toMatchObject({ path: '/api/zip/90210', err: { message: 'variables that cannot be made' } });
  });

  it('shaping that throws one of our errors: its status, code and detail, nothing logged', async () => {
    const get = await mount(
      zipRoute(() => {
        throw new GraphQLError('That ZIP is retired.', { extensions: { status: 410, code: 'GONE' } });
      }),
    );
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.body]).toEqual([410, expect.objectContaining({ status: 410, code: 'GONE', detail: 'That ZIP is retired.' })]);
    expect(answer.log).toEqual([]);
  });

  it('data that fails (the database closed): 500, logged once by the executor’s error policy, not again by the router', async () => {
    const get = await mount(zipRoute((data) => data));
    world!.db.close();
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.body]).toEqual([500, expect.objectContaining(INTERNAL)]);
    expect(answer.log).toEqual(['unexpected error in a resolver']);
  });
});

describe('an operation no route of ours has', () => {
  it('@defer: REST does not stream, so the operation is answered whole (200, the deferred field in place)', async () => {
    const get = await mount(zipRoute((data) => data, 'query ($zip: String!) { zip(zip: $zip) { city ... @defer { county } } }'));
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.body]).toEqual([200, { zip: { city: 'Beverly Hills', county: 'Los Angeles' } }]);
    expect(answer.log).toEqual([]);
  });

  it('a subscription: refused (406) with no headers of its own, the key’s kept', async () => {
    const get = await mount(zipRoute((data) => data, 'subscription { syncProgress { state } }'));
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.body]).toEqual([406, expect.objectContaining({ status: 406, code: 'NOT_ACCEPTABLE' })]);
    expect(answer.headers).toEqual([null, '10000', '9999', '86400', null]);
    expect(answer.log).toEqual([]);
  });
});

describe('a refusal of the pipeline’s', () => {
  it('its error carries no status: the refusal’s own status, code and headers, its detail, nothing logged', async () => {
    // A GET route whose operation is a mutation (no route of ours is): refused before anything runs.
    const get = await mount(zipRoute((data) => data, 'mutation { runSync { state } }'));
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.body]).toEqual([
      405,
      expect.objectContaining({ status: 405, code: 'METHOD_NOT_ALLOWED', detail: 'Can only perform a mutation operation from a POST request.' }),
    ]);
    expect(answer.log).toEqual([]);
    // Its own header (Allow), the key's kept.
    expect(answer.headers).toEqual([null, '10000', '9999', '86400', 'POST']);
  });

  it("over the key's cost budget: 429, the budget's RateLimit headers in place of the quota's, and Retry-After", async () => {
    const get = await mount(zipRoute((data) => data, '{ states { zipcodes(limit: 400) { zip } } }'));
    const answer = await get('/api/zip/90210');
    expect([answer.status, answer.body]).toEqual([429, expect.objectContaining({ status: 429, code: 'RATE_LIMITED' })]);
    expect(answer.headers).toEqual(['10', '20000', '20000', '10', null]);
    expect(answer.log).toEqual([]);
  });
});
