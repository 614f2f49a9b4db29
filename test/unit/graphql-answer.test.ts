import { gunzipSync } from 'node:zlib';
import { GraphQLError } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { refuse } from '../../src/operation/operation.js';
import { ResponseCache } from '../../src/http/response-cache.js';
import { sendAnswer, sendKept } from '../../src/transports/graphql/answer.js';
import { ask, closeServers, rawGet, serving } from './serving.js';

/** How one outcome goes out as one JSON answer, through an exchange on a real server. */
afterEach(closeServers);

const noCache = new ResponseCache(0);
const JSON_ONLY = { headers: { accept: 'application/json' } };

describe('a result without data is a request error', () => {
  it('400, or the 4xx its first error names; never a 5xx or a status that is not a number', async () => {
    const statuses: Record<string, unknown> = {
      '/404': 404,
      '/403': 403,
      '/400': 400,
      '/499': 499,
      '/500': 500,
      '/399': 399,
      '/text': '404',
      '/none': undefined,
    };
    const url = await serving((ex) => {
      const status = statuses[ex.path];
      if (ex.path === '/no-errors') return sendAnswer(ex, { kind: 'result', result: { errors: [] } as never }, noCache);
      const errors = ex.path === '/empty' ? undefined : [{ message: 'no', extensions: status === undefined ? undefined : { status } }];
      return sendAnswer(ex, { kind: 'result', result: { errors } as never }, noCache);
    });
    const got: Record<string, number> = {};
    for (const path of [...Object.keys(statuses), '/empty', '/no-errors']) got[path] = (await ask(url + path, JSON_ONLY)).status;
    expect(got).toEqual({
      '/404': 404,
      '/403': 403,
      '/400': 400,
      '/499': 499,
      '/500': 400,
      '/399': 400,
      '/text': 400,
      '/none': 400,
      '/empty': 400,
      '/no-errors': 400,
    });
  });

  it('a result with data is 200, not to be stored', async () => {
    const url = await serving((ex) => sendAnswer(ex, { kind: 'result', result: { data: { a: 1 } } }, noCache));
    const r = await ask(url, JSON_ONLY);
    expect([r.status, r.headers.get('cache-control'), await r.json()]).toEqual([200, 'no-store', { data: { a: 1 } }]);
  });
});

describe('a refusal', () => {
  it('over the cost budget: 429 with the budget’s RateLimit headers in place of the key check’s, not to be stored', async () => {
    const url = await serving((ex) => {
      ex.headers.push('ratelimit-limit', '1000', 'ratelimit-remaining', '999');
      return sendAnswer(ex, refuse(new GraphQLError('over budget'), 429, 429, ['ratelimit-limit', '50', 'ratelimit-remaining', '0']), noCache);
    });
    const r = await ask(url, JSON_ONLY);
    expect([r.status, r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining'), r.headers.get('cache-control')]).toEqual([
      429,
      '50',
      '0',
      'no-store',
    ]);
  });
});

describe('a kept answer', () => {
  it('its first compressed form is counted in the cache once sent; a form it already had is not counted again', async () => {
    const cache = new ResponseCache(1_000_000);
    const body = JSON.stringify({ data: { rows: Array.from({ length: 300 }, (_, i) => ({ zip: String(10000 + i) })) } });
    // Asked for twice, the second ask is admitted.
    cache.get('k');
    cache.get('k');
    const answer = cache.put('k', body);
    expect(cache.size).toBe(1);
    const plainBytes = cache.bytes;
    const url = await serving((ex) => sendKept(ex, { kind: 'kept', key: 'k', answer, cacheControl: 'max-age=60' }, cache, 'application/json'));
    const gz = await rawGet(url, { 'accept-encoding': 'gzip' });
    expect(gunzipSync(gz.body).toString()).toBe(body);
    expect(gz.headers['cache-control']).toBe('max-age=60');
    expect(cache.bytes).toBe(plainBytes + gz.body.length);
    // The same form again, and the body as it is: nothing more to count.
    await rawGet(url, { 'accept-encoding': 'gzip' });
    await rawGet(url, {});
    expect(cache.bytes).toBe(plainBytes + gz.body.length);
  });

  it('an answer the cache no longer holds is not put back by its sending', async () => {
    const cache = new ResponseCache(1_000_000);
    const body = JSON.stringify({ data: { rows: Array.from({ length: 300 }, (_, i) => ({ zip: String(20000 + i) })) } });
    const answer = cache.put('gone', body);
    expect(cache.size).toBe(0);
    const url = await serving((ex) => sendKept(ex, { kind: 'kept', key: 'gone', answer, cacheControl: 'no-cache' }, cache, 'application/json'));
    await rawGet(url, { 'accept-encoding': 'gzip' });
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });
});
